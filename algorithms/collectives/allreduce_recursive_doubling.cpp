// recursive-doubling: in step k every rank exchanges its whole buffer with the rank 2^k away and adds
// the two; after lg p steps all hold the sum. Latency-optimal (lg p messages) but moves n·lg p bytes per
// rank, so it suits small buffers (MPICH's choice below 2 KiB). Any p, through the power-of-two fold.

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/power_of_two_fold.hpp"

namespace ddl {
namespace {

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions&, int) {
  const PowerOfTwoFold fold(group);
  fold.appendFoldIn(builder, range);
  const int me = fold.activeIndexOf(builder.self());
  if (me >= 0) {
    for (int distance = 1; distance < fold.activeSize(); distance *= 2) {
      const Rank partner = fold.activeRank(me ^ distance);
      builder.send(partner, range);
      builder.receiveReduce(partner, range);
    }
  }
  fold.appendFoldOut(builder, range);
}

// Each of the lg p' exchanges costs α + n·β for the transfer and n·γ for the reduction, which must wait for
// the rank's own send of the same buffer to finish.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions&, const CostModel& model) {
  const LinkCost& link = model.link(0);
  const double bytes = spec.bytes();
  const int steps = log2Exact(largestPowerOfTwoAtMost(spec.ranks));
  return PowerOfTwoFold::seconds(spec.ranks, bytes, link, model.reduceSecondsPerByte()) +
         steps * (link.messageSeconds(bytes) + model.reduceSeconds(bytes));
}

}  // namespace

const AlgorithmDefinition kRecursiveDoublingAllreduce{
    .name = "recursive-doubling",
    .collective = CollectiveKind::Allreduce,
    .summary = "lg p exchanges of the whole buffer with partners 1, 2, 4, ... away",
    .composable = true,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
