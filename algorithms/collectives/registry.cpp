#include "algorithms/collectives/registry.hpp"

#include <vector>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/nccl_channels.hpp"
#include "algorithms/collectives/nvls_shards.hpp"
#include "algorithms/collectives/option_table.hpp"
#include "common/nearest_name.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

const AlgorithmDefinition* const kAlgorithms[] = {
    &kRingAllreduce,
    &kDdlAllreduce,
    &kHalvingDoublingAllreduce,
    &kRecursiveDoublingAllreduce,
    &kBinomialTreeAllreduce,
    &kDoubleBinaryTreeAllreduce,
    &kTorus2dAllreduce,
    &kHierarchicalAllreduce,
    &kNcclRingAllreduce,
    &kNcclTreeAllreduce,
    &kNcclNvlsAllreduce,
    &kNcclNvlsTreeAllreduce,
    &kRingReduceScatter,
    &kRingAllGather,
    &kNcclRingReduceScatter,
    &kNcclRingAllGather,
};

}  // namespace

void checkOptions(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options) {
  for (const OptionDeclaration& option : algorithmOptionTable())
    if (option.get(options) && !(algorithm.options & option.bit))
      throw InvalidArgument(std::string(option.name), std::string(algorithm.name) + " takes no " + std::string(option.name));
  algorithm.validate(ranks, options);
}

void refuseSwitchReduction(const AlgorithmDefinition& algorithm, const std::string& field, std::string_view where) {
  if (!algorithm.reducesInSwitch()) return;
  throw InvalidArgument(field, std::string(algorithm.name) + " reduces in an NVSwitch with multicast (NVLS)" + std::string(where) +
                                   "; ddlsim collective simulates it");
}

void acceptsAnyRankCount(int, const AlgorithmOptions&) {}
std::vector<int> flatCostLevels(int ranks, const AlgorithmOptions&) { return {ranks}; }

std::span<const AlgorithmDefinition* const> allAlgorithms() { return kAlgorithms; }

const AlgorithmDefinition& findAlgorithm(CollectiveKind kind, std::string_view name) {
  std::vector<std::string_view> known;
  for (const AlgorithmDefinition* algorithm : kAlgorithms) {
    if (algorithm->collective != kind) continue;
    if (algorithm->name == name) return *algorithm;
    known.push_back(algorithm->name);
  }
  throw InvalidArgument("algorithm", "no " + std::string(toString(kind)) + " algorithm named '" + std::string(name) + "'" +
                                         didYouMean(name, known) + "; known: " + listOfNames(known));
}

Schedule makeSchedule(const AlgorithmDefinition& algorithm, const CollectiveSpec& spec, const AlgorithmOptions& options) {
  if (spec.ranks < 1 || spec.ranks > kMaxRanks)
    throw InvalidArgument("ranks", "must be 1 to " + std::to_string(kMaxRanks) + ", got " + std::to_string(spec.ranks));
  if (spec.elementBytes < 1 || spec.elementBytes > 1024)
    throw InvalidArgument("element-bytes", "must be 1 to 1024, got " + std::to_string(spec.elementBytes));
  if (spec.elements < 0 || spec.elements > kMaxBufferBytes / spec.elementBytes)
    throw InvalidArgument("elements", std::to_string(spec.elements) + " elements of " + std::to_string(spec.elementBytes) +
                                          " bytes is outside 0 .. " + std::to_string(kMaxBufferBytes) + " bytes");
  if (spec.kind != algorithm.collective)
    throw InvalidArgument("algorithm", std::string(algorithm.name) + " is a " + std::string(toString(algorithm.collective)) +
                                           " algorithm, not " + std::string(toString(spec.kind)));
  checkOptions(algorithm, spec.ranks, options);
  // A rank's program has up to 6 steps per chunk (in a pipelined tree: receive from two children, send to
  // the parent, and back down), on every rank alike: refuse at once, on every rank, what ProgramBuilder would
  // refuse only after building 2^24 steps, and on some ranks only. A switch of p GPUs takes 2p + 2 steps per
  // shard of the buffer (p receives and a send of its sum, a receive of the store and p sends of it), more
  // than any of its GPUs takes, in shards of at least 64 KiB unless the options say (nvls_shards.hpp).
  const int switches = algorithm.reducesInSwitch() ? algorithm.switches(spec.ranks, options) : 0;
  const double stepsPerChunk = switches > 0 ? 2.0 * (spec.ranks / switches) + 2 : 8;
  const std::optional<std::int64_t> chunkBytes =
      options.chunkBytes ? options.chunkBytes : switches > 0 ? std::optional<std::int64_t>(kNcclNvlsTreeManyNodesShardBytes) : std::nullopt;
  if (chunkBytes && *chunkBytes > 0 && stepsPerChunk * spec.bytes() / static_cast<double>(*chunkBytes) > static_cast<double>(kMaxStepsPerProgram))
    throw InvalidArgument("chunk-bytes", std::to_string(*chunkBytes) + "-byte chunks of " +
                                             std::to_string(static_cast<long long>(spec.bytes())) + " bytes take up to " +
                                             std::to_string(static_cast<long long>(stepsPerChunk * spec.bytes() /
                                                                                   static_cast<double>(*chunkBytes))) +
                                             " steps per program; at most " + std::to_string(kMaxStepsPerProgram));
  const AlgorithmDefinition* definition = &algorithm;
  CollectiveSpec withSwitches = spec;
  withSwitches.switches = switches;
  Schedule schedule(withSwitches, algorithm.description(options), [definition, spec, options](Rank rank) {
    ProgramBuilder builder(rank, spec.elements);
    definition->append(builder, Group::all(spec.ranks), spec.buffer(), options, spec.elementBytes);
    return std::move(builder).finish();
  });
  if (algorithm.translationPeriod) schedule.claimTranslationPeriod(algorithm.translationPeriod(spec, options));
  return schedule;
}

Schedule makeGroupedSchedule(const AlgorithmDefinition& algorithm, const CollectiveSpec& spec, int groupRanks, RankGroups groups,
                             const AlgorithmOptions& options) {
  if (algorithm.reducesInSwitch())
    throw InvalidArgument("algorithm", std::string(algorithm.name) + " reduces in its nodes' NVSwitches and cannot run as groups");
  if (groupRanks < 1 || spec.ranks % groupRanks != 0)
    throw InvalidArgument("ranks", "groups of " + std::to_string(groupRanks) + " do not divide " + std::to_string(spec.ranks) + " ranks");
  const bool within = groups == RankGroups::WithinGroups;
  const int members = within ? groupRanks : spec.ranks / groupRanks;
  // One group's collective, checked as makeSchedule checks any: what every group runs.
  const CollectiveSpec one{spec.kind, members, within ? spec.elements : blockOf(spec.buffer(), groupRanks, 0).count, spec.elementBytes};
  const Schedule single = makeSchedule(algorithm, one, options);
  const AlgorithmDefinition* definition = &algorithm;
  Schedule schedule(spec,
                    single.description() + (within ? " within each " : " across the ") + std::to_string(within ? groupRanks : members) +
                        (within ? " ranks" : " groups"),
                    [definition, spec, groupRanks, within, options](Rank rank) {
                      ProgramBuilder builder(rank, spec.elements);
                      const int index = rank % groupRanks;
                      const Group group = within ? Group{rank - index, 1, groupRanks} : Group{index, groupRanks, spec.ranks / groupRanks};
                      const Range range = within ? spec.buffer() : blockOf(spec.buffer(), groupRanks, index);
                      definition->append(builder, group, range, options, spec.elementBytes);
                      return std::move(builder).finish();
                    });
  // Rank r + g runs rank r's program moved by g (the next group, the same index); across the groups that is
  // the group's own collective moved by one member, which the algorithm's claim must cover.
  if (within) schedule.claimTranslationPeriod(groupRanks);
  else if (single.translationPeriod() > 0 && spec.elements % groupRanks == 0) schedule.claimTranslationPeriod(groupRanks * single.translationPeriod());
  return schedule;
}

CostModel costModelFor(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options,
                       const std::vector<LinkCost>& links, double reduceSecondsPerByte) {
  std::vector<int> levels = algorithm.costLevels(ranks, options);
  if (links.size() == 1) return CostModel(levels, std::vector<LinkCost>(levels.size(), links.front()), reduceSecondsPerByte);
  if (links.size() != levels.size())
    throw InvalidArgument("links", std::string(algorithm.name) + " distinguishes " + std::to_string(levels.size()) +
                                       " link levels; give one cost for all or one per level, not " +
                                       std::to_string(links.size()));
  return CostModel(std::move(levels), links, reduceSecondsPerByte);
}

}  // namespace ddl
