// binomial-tree: reduce the whole buffer to rank 0 along a binomial tree, then broadcast it back along
// the same tree. 2·lg p messages on the critical path, each of the whole buffer; MPICH's oldest allreduce.

#include "algorithms/collectives/binomial_phases.hpp"
#include "algorithms/collectives/definitions.hpp"

namespace ddl {
namespace {

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions&, int) {
  appendBinomialReduce(builder, group, range);
  appendBinomialBroadcast(builder, group, range);
}

double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions&, const CostModel& model) {
  return binomialReduceSeconds(spec.ranks, spec.bytes(), model.link(0), model.reduceSecondsPerByte()) +
         binomialBroadcastSeconds(spec.ranks, spec.bytes(), model.link(0));
}

}  // namespace

const AlgorithmDefinition kBinomialTreeAllreduce{
    .name = "binomial-tree",
    .collective = CollectiveKind::Allreduce,
    .summary = "binomial-tree reduce to rank 0, then binomial-tree broadcast",
    .composable = true,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
