// hierarchical: reduce to the first rank of each node over the node's fast links (binomial tree), allreduce
// among those node leaders with an inner algorithm over the network, broadcast back within each node
// (Horovod's and NCCL 2.0's hierarchical allreduce). Ranks r*K .. r*K+K-1 form node r.

#include "algorithms/collectives/binomial_phases.hpp"
#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/inner_allreduce.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

void validate(int ranks, const AlgorithmOptions& options) {
  if (!options.ranksPerNode) throw InvalidArgument("ranks-per-node", "hierarchical needs the ranks per node");
  const int perNode = *options.ranksPerNode;
  if (perNode < 1 || ranks % perNode != 0)
    throw InvalidArgument("ranks-per-node", std::to_string(perNode) + " does not divide " + std::to_string(ranks) +
                                                " ranks into whole nodes");
  innerOptions(options, ranks / perNode);
}

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options,
            int elementBytes) {
  if (!group.contains(builder.self())) return;
  const int perNode = *options.ranksPerNode;
  const int member = group.indexOf(builder.self());
  const Group node{group.rank(member - member % perNode), group.stride, perNode};
  const Group leaders{group.base, group.stride * perNode, group.size / perNode};
  appendBinomialReduce(builder, node, range);
  innerAllreduce(options).append(builder, leaders, range, innerOptions(options, leaders.size), elementBytes);
  appendBinomialBroadcast(builder, node, range);
}

// Every node finishes its reduce at the same time, so the inner allreduce starts together on all leaders
// and the broadcast follows the last leader to finish.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  const int perNode = *options.ranksPerNode;
  const int nodes = spec.ranks / perNode;
  return binomialReduceSeconds(perNode, spec.bytes(), model.link(0), model.reduceSecondsPerByte()) +
         innerClosedFormSeconds(options, nodes, spec.elements, spec.elementBytes, model.levelModel(1, nodes)) +
         binomialBroadcastSeconds(perNode, spec.bytes(), model.link(0));
}

// Moving every rank by a node keeps every node's reduce and broadcast, and moves each leader by one place
// among the leaders: the inner allreduce's claim t over them makes t nodes a period of the whole.
int translationPeriod(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const int perNode = *options.ranksPerNode;
  return perNode * innerTranslationPeriod(options, spec.ranks / perNode, spec.elements, spec.elementBytes);
}

}  // namespace

const AlgorithmDefinition kHierarchicalAllreduce{
    .name = "hierarchical",
    .collective = CollectiveKind::Allreduce,
    .summary = "reduce within each node, inner allreduce across node leaders, broadcast within each node",
    .options = kRanksPerNode | kInner | kChunkBytes,
    .validate = validate,
    .describe =
        [](const AlgorithmOptions& options) {
          return "hierarchical " + std::to_string(*options.ranksPerNode) + " per node, inner " +
                 std::string(innerAllreduce(options).name);
        },
    .append = append,
    .costLevels =
        [](int ranks, const AlgorithmOptions& options) {
          return std::vector<int>{*options.ranksPerNode, ranks / *options.ranksPerNode};
        },
    .closedFormSeconds = closedFormSeconds,
    .translationPeriod = translationPeriod,
};

}  // namespace ddl
