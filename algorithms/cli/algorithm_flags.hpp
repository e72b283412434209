#pragma once
// The command-line options that choose a collective algorithm and its shape, shared by the subcommands
// that take them (ddlsim schedule and collective, ddlrun bench). Errors name the flag (--dims, not the
// option's field name dims).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "algorithms/schedule/schedule.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

class AlgorithmFlags {
 public:
  // Adds --algorithm, --collective, --tuning and a flag for every option of the registry's option table
  // (--dims, --ranks-per-node, --inner, --chunk-bytes) to `command`.
  void addTo(CLI::App* command);

  bool algorithmGiven() const { return command_->count("--algorithm") > 0; }
  // --algorithm auto: a tuning table (--tuning FILE, loaded and checked on the first call) chooses the
  // algorithm and its options per size. InvalidArgument naming the flag for auto without --tuning, for
  // --tuning without auto, and for options given alongside auto.
  bool tuned() const;
  // --algorithm nccl: NCCL's tuning model chooses per size from the topology (ddlsim collective only).
  // InvalidArgument naming the option for options given alongside it.
  bool ncclChosen() const;
  const TuningTable& tuning() const;
  // InvalidArgument("--tuning", ...) unless the table is for `kind` on `ranks` ranks (`ranksFlag` sets them)
  // and, where `topology` is given, was tuned on it.
  // --tuning's table must be of this collective, rank count, topology (empty: any) and element size (0: any).
  void requireTuningFits(CollectiveKind kind, int ranks, const std::string& ranksFlag, const std::string& topology = "",
                         int elementBytes = 0) const;
  // What runs a collective of `bytes`: the table's choice with auto, else algorithm() and options().
  AlgorithmChoice choiceFor(double bytes) const;
  // InvalidArgument naming the first of these options given, where a schedule file gives the schedule instead.
  void requireNoneGiven(const std::string& becauseOf) const;
  // The chosen algorithm; InvalidArgument naming the option if unknown.
  const AlgorithmDefinition& algorithm() const;
  CollectiveKind collective() const;
  // Only the options given on the command line are set.
  AlgorithmOptions options() const;
  // The chosen algorithm's schedule for `spec`; InvalidArgument naming the flag at fault, `ranksFlag` for
  // a rank count that does not fit the options.
  Schedule schedule(const CollectiveSpec& spec, const std::string& ranksFlag) const;

 private:
  // InvalidArgument naming the first algorithm option given, which `chooser` ("auto: ...") chooses instead.
  void requireNoOptionGiven(const std::string& chooser) const;

  CLI::App* command_ = nullptr;
  std::string algorithm_;
  std::string collective_ = "allreduce";
  std::string tuningFile_;
  mutable std::shared_ptr<const TuningTable> tuning_;
  std::map<std::string, std::string, std::less<>> optionText_;  // by option name, as given
};

// The flag that sets the option `field` names (--dims for dims); `ranksFlag` for ranks; else `field`.
std::string flagFor(const std::string& field, const std::string& ranksFlag);

// Runs `call`; an InvalidArgument it throws about an algorithm option (dims, inner, ...) is rethrown naming
// the flag (--dims, --inner, ...), and one about the rank count naming `ranksFlag`.
template <class Call>
auto withFlagNames(const std::string& ranksFlag, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const InvalidArgument& error) {
    const std::string flag = flagFor(error.field(), ranksFlag);
    if (flag == error.field()) throw;
    throw InvalidArgument(flag, error.message());
  }
}

}  // namespace ddl
