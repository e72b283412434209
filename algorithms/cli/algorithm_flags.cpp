#include "algorithms/cli/algorithm_flags.hpp"

#include "algorithms/collectives/option_table.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/cli_checks.hpp"
#include "common/invalid_argument.hpp"
#include "common/nearest_name.hpp"

namespace ddl {

std::string flagFor(const std::string& field, const std::string& ranksFlag) {
  const OptionDeclaration* option = findOptionDeclaration(field);
  // Errors name options by name, never by file key.
  if (field == "algorithm" || field == "element-bytes" || (option && option->name == field)) return "--" + field;
  if (field == "ranks") return ranksFlag;
  return field;
}

void AlgorithmFlags::addTo(CLI::App* command) {
  command_ = command;
  std::string names;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if (algorithm->collective == CollectiveKind::Allreduce) names += (names.empty() ? "" : ", ") + std::string(algorithm->name);
  command->add_option("--algorithm", algorithm_,
                      "Algorithm: " + names + " (ddlsim algorithms lists every collective's); auto: the --tuning "
                      "table's best at each size; nccl (ddlsim collective): NCCL's own choice of ring or tree, channels and "
                      "protocol at each size, by its tuning model");
  command->add_option("--tuning", tuningFile_,
                      "With --algorithm auto: the tuning table (ddlsim tune --out) that chooses the algorithm and its "
                      "options at each size, from the table's size nearest on a log scale")
      ->check(readableFile());
  command->add_option("--collective", collective_, "allreduce, reduce-scatter or all-gather")->capture_default_str();
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    std::string help(option.help);
    help[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(help[0])));
    constexpr const char* kTypeNames[] = {"WxHx..", "INT", "SIZE", "NAME"};  // by OptionType
    command->add_option("--" + std::string(option.name), optionText_[std::string(option.name)],
                        help + "; taken by " + algorithmsTaking(option))
        ->type_name(kTypeNames[static_cast<int>(option.type)]);
  }
}

void AlgorithmFlags::requireNoneGiven(const std::string& becauseOf) const {
  std::vector<std::string> flags{"--algorithm", "--collective", "--tuning"};
  for (const OptionDeclaration& option : algorithmOptionTable()) flags.push_back("--" + std::string(option.name));
  for (const std::string& flag : flags)
    if (command_->count(flag) > 0)
      throw InvalidArgument(flag, "cannot be combined with " + becauseOf + ": the file gives the schedule");
}

CollectiveKind AlgorithmFlags::collective() const {
  const auto kind = parseCollectiveKind(collective_);
  if (!kind) {
    constexpr std::string_view kinds[] = {"allreduce", "reduce-scatter", "all-gather"};
    throw InvalidArgument("--collective", "'" + collective_ + "' is not allreduce, reduce-scatter or all-gather" +
                                              didYouMean(collective_, kinds));
  }
  return *kind;
}

void AlgorithmFlags::requireNoOptionGiven(const std::string& chooser) const {
  for (const OptionDeclaration& option : algorithmOptionTable())
    if (command_->count("--" + std::string(option.name)))
      throw InvalidArgument("--" + std::string(option.name), "cannot be combined with --algorithm " + chooser);
}

bool AlgorithmFlags::tuned() const {
  const bool automatic = algorithmGiven() && algorithm_ == "auto";
  if (!automatic && command_->count("--tuning"))
    throw InvalidArgument("--tuning", "only with --algorithm auto, which reads the table");
  if (automatic && !command_->count("--tuning"))
    throw InvalidArgument("--tuning", "--algorithm auto needs the tuning table that chooses (ddlsim tune writes one)");
  if (automatic) requireNoOptionGiven("auto: the tuning table gives each size's options");
  return automatic;
}

bool AlgorithmFlags::ncclChosen() const {
  const bool nccl = algorithmGiven() && algorithm_ == "nccl";
  if (nccl) requireNoOptionGiven("nccl: NCCL's tuning model gives each size's channels and ranks per node");
  return nccl;
}

const TuningTable& AlgorithmFlags::tuning() const {
  if (!tuned()) throw InvalidArgument("--tuning", "only with --algorithm auto");
  if (!tuning_) tuning_ = std::make_shared<const TuningTable>(loadTuningTable(tuningFile_));
  return *tuning_;
}

void AlgorithmFlags::requireTuningFits(CollectiveKind kind, int ranks, const std::string& ranksFlag,
                                       const std::string& topology, int elementBytes) const {
  const std::string mismatch = tuningMismatch(tuning(), kind, ranks, topology, elementBytes);
  if (!mismatch.empty()) throw InvalidArgument("--tuning", tuningFile_ + " " + mismatch + (tuning().gpus != ranks ? " (" + ranksFlag + ")" : ""));
}

AlgorithmChoice AlgorithmFlags::choiceFor(double bytes) const {
  if (tuned()) return tuning().choose(bytes);
  return {&algorithm(), options()};
}

const AlgorithmDefinition& AlgorithmFlags::algorithm() const {
  if (!algorithmGiven()) throw InvalidArgument("--algorithm", "required");
  if (tuned()) throw InvalidArgument("--algorithm", "auto chooses per size; this command needs one algorithm");
  if (ncclChosen())
    throw InvalidArgument("--algorithm", "nccl chooses per size from a topology, which ddlsim collective and ddlrun bench "
                                         "--topology have; this command needs one algorithm (nccl-ring and nccl-tree run "
                                         "NCCL's ring and tree)");
  return withFlagNames("--ranks", [&]() -> const AlgorithmDefinition& { return findAlgorithm(collective(), algorithm_); });
}

AlgorithmOptions AlgorithmFlags::options() const {
  return withFlagNames("--ranks", [&] {
    AlgorithmOptions options;
    for (const OptionDeclaration& option : algorithmOptionTable()) {
      const std::string name(option.name);
      if (command_->count("--" + name)) option.set(options, parseOptionText(option, optionText_.find(name)->second));
    }
    return options;
  });
}

Schedule AlgorithmFlags::schedule(const CollectiveSpec& spec, const std::string& ranksFlag) const {
  const AlgorithmChoice chosen = choiceFor(spec.bytes());
  return withFlagNames(ranksFlag, [&] { return makeSchedule(*chosen.algorithm, spec, chosen.options); });
}

}  // namespace ddl
