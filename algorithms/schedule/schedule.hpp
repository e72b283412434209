#pragma once
// A collective schedule: the program of any rank, generated when asked for, so that a 4096-rank schedule
// never has to exist whole in memory.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/schedule/collective.hpp"
#include "algorithms/schedule/program.hpp"

namespace ddl {

class Schedule {
 public:
  using ProgramFactory = std::function<Program(Rank)>;

  Schedule(CollectiveSpec spec, std::string description, ProgramFactory factory)
      : spec_(spec), description_(std::move(description)), factory_(std::move(factory)) {}

  // A schedule whose programs are given rather than generated: loaded from JSON, or altered by hand.
  static Schedule fromPrograms(CollectiveSpec spec, std::string description, std::vector<Program> programs) {
    auto stored = std::make_shared<const std::vector<Program>>(std::move(programs));
    return Schedule(spec, std::move(description),
                    [stored](Rank rank) { return (*stored)[static_cast<std::size_t>(rank)]; });
  }

  const CollectiveSpec& spec() const { return spec_; }
  int ranks() const { return spec_.ranks; }
  // The ranks and the switches that reduce between them (CollectiveSpec::switches): every program.
  int participants() const { return spec_.participants(); }
  // "ddl 4x16x4", "hierarchical 4 ranks per node, inner ring"
  const std::string& description() const { return description_; }
  Program program(Rank rank) const { return factory_(rank); }

  // T > 0 where the schedule claims that rank (r + T) mod P runs rank r's program moved by T ranks: the same
  // steps in the same order, of the same kinds, sizes, channels and dependencies, each peer p moved to
  // (p + T) mod P (offsets may differ). T divides P. 0: no such claim. The step engine simulates ranks
  // that do the same thing once (sim/step/step_symmetry.hpp); tests check every claim against the programs.
  int translationPeriod() const { return translationPeriod_; }
  void claimTranslationPeriod(int period) { translationPeriod_ = period; }

  // Every participant's program at once, for analyses that need them together (verification, the schedule
  // walk).
  std::vector<Program> allPrograms() const {
    std::vector<Program> programs;
    programs.reserve(static_cast<std::size_t>(participants()));
    for (Rank r = 0; r < participants(); ++r) programs.push_back(program(r));
    return programs;
  }

 private:
  CollectiveSpec spec_;
  std::string description_;
  ProgramFactory factory_;
  int translationPeriod_ = 0;
};

}  // namespace ddl
