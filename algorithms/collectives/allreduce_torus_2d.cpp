// torus-2d (Mikami et al., Sony, arXiv 1811.05233): ranks form a W x H grid, rows of W consecutive ranks.
// Reduce-scatter around each row, allreduce each block down its column with an inner algorithm, all-gather
// around each row. With the inner ring this is exactly ddl WxH; other inner algorithms trade the column's
// bandwidth for latency.

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/inner_allreduce.hpp"
#include "algorithms/collectives/ring_phases.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

void validate(int ranks, const AlgorithmOptions& options) {
  if (!options.dims || options.dims->size() != 2)
    throw InvalidArgument("dims", "torus-2d needs the grid as WxH (row length first)");
  checkGrid(*options.dims, ranks);
  const int height = (*options.dims)[1];
  innerOptions(options, height);
}

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options,
            int elementBytes) {
  if (!group.contains(builder.self())) return;
  const int width = (*options.dims)[0];
  const int height = (*options.dims)[1];
  const int member = group.indexOf(builder.self());
  const int column = member % width;
  const Group row{group.rank(member - column), group.stride, width};
  const Group columnGroup{group.rank(column), group.stride * width, height};
  appendRingReduceScatter(builder, row, range);
  innerAllreduce(options).append(builder, columnGroup, blockOf(range, width, column),
                                 innerOptions(options, height), elementBytes);
  appendRingAllGather(builder, row, range);
}

// The column holding the largest row block (column 0) finishes the row reduce-scatter on every rank at the
// same time and has the longest inner allreduce; its block's row all-gather ends last.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  const int width = (*options.dims)[0];
  const int height = (*options.dims)[1];
  return ringReduceScatterSeconds(width, spec.elements, spec.elementBytes, model.link(0), model.reduceSecondsPerByte()) +
         innerClosedFormSeconds(options, height, largestBlock(spec.elements, width), spec.elementBytes,
                                model.levelModel(1, height)) +
         ringAllGatherSeconds(width, spec.elements, spec.elementBytes, model.link(0));
}

// Moving every rank by a row keeps every row's ring, and moves each rank one place down its column: the
// inner allreduce's claim t over the column's block makes t rows a period, where every column's block is
// of one size (the rows divide the elements).
int translationPeriod(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const int width = (*options.dims)[0];
  const int height = (*options.dims)[1];
  if (spec.elements % width != 0) return 0;
  return width * innerTranslationPeriod(options, height, spec.elements / width, spec.elementBytes);
}

}  // namespace

const AlgorithmDefinition kTorus2dAllreduce{
    .name = "torus-2d",
    .collective = CollectiveKind::Allreduce,
    .summary = "row reduce-scatter, column allreduce (inner algorithm), row all-gather on a WxH grid",
    .options = kDims | kInner | kChunkBytes,
    .validate = validate,
    .describe =
        [](const AlgorithmOptions& options) {
          return "torus-2d " + formatDims(*options.dims) + ", inner " + std::string(innerAllreduce(options).name);
        },
    .append = append,
    // A row is the GPUs of a node (or all of them, if fewer); a column the rest.
    .dimsFromTopology = [](const std::vector<int>& grid, int ranks) { return std::vector<int>{grid.front(), ranks / grid.front()}; },
    .costLevels = [](int, const AlgorithmOptions& options) { return *options.dims; },
    .closedFormSeconds = closedFormSeconds,
    .translationPeriod = translationPeriod,
};

}  // namespace ddl
