// ddl: PowerAI DDL's multi-dimensional ring (Cho et al., IBM, arXiv 1708.02188). Ranks form a grid
// d1 x d2 x ... (GPUs per host x hosts per rack x racks, fastest-varying first). Reduce-scatter around the
// rings of dimension 1 on the whole buffer, then around the rings of dimension 2 on the block each rank
// now owns, and so on; then all-gather back in reverse order. Every ring of a dimension runs at once, and
// each dimension moves 1/(d1...d(k-1)) of the data of the one before, so the slow outer links carry little.

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/ring_phases.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

constexpr std::size_t kMaxDims = 4;

void validate(int ranks, const AlgorithmOptions& options) {
  if (!options.dims) throw InvalidArgument("dims", "ddl needs the grid, e.g. 4x16x4 (fastest-varying first)");
  const std::vector<int>& dims = *options.dims;
  if (dims.empty() || dims.size() > kMaxDims)
    throw InvalidArgument("dims", "ddl takes 1 to 4 dimensions, got " + std::to_string(dims.size()));
  checkGrid(dims, ranks);
}

// The ring of dimension `dim` through the calling rank, within `group`.
Group ringAlong(const Group& group, const std::vector<int>& dims, std::size_t dim, int index) {
  int stride = 1;
  for (std::size_t k = 0; k < dim; ++k) stride *= dims[k];
  const int coordinate = (index / stride) % dims[dim];
  return Group{group.rank(index - coordinate * stride), group.stride * stride, dims[dim]};
}

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options, int) {
  if (!group.contains(builder.self())) return;
  const std::vector<int>& dims = *options.dims;
  const int index = group.indexOf(builder.self());
  std::vector<Range> ranges{range};  // ranges[k]: what the dimension-k rings reduce
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const Group ring = ringAlong(group, dims, k, index);
    appendRingReduceScatter(builder, ring, ranges[k]);
    ranges.push_back(blockOf(ranges[k], ring.size, ring.indexOf(builder.self())));
  }
  for (std::size_t k = dims.size(); k-- > 0;) appendRingAllGather(builder, ringAlong(group, dims, k, index), ranges[k]);
}

// Dimension k's rings work on at most M_k = ceil(M_(k-1) / d_(k-1)) elements, M_1 = n, each on its own link
// level; the rank owning every largest block is on the critical path of every phase.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  const std::vector<int>& dims = *options.dims;
  double seconds = 0;
  Elements elements = spec.elements;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const LinkCost& link = model.link(static_cast<int>(k));
    seconds += ringReduceScatterSeconds(dims[k], elements, spec.elementBytes, link, model.reduceSecondsPerByte()) +
               ringAllGatherSeconds(dims[k], elements, spec.elementBytes, link);
    elements = largestBlock(elements, dims[k]);
  }
  return seconds;
}

// Moving every rank by one step of the last dimension (d1...d(k-1) ranks) keeps every ring of the first k-1
// dimensions a ring of them, with the same blocks, and turns each last-dimension ring by one place: the
// same program moved, where that ring's blocks are of one size. Every dimension's blocks are, when the
// ranks divide the elements.
int translationPeriod(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  if (spec.ranks == 0 || spec.elements % spec.ranks != 0) return 0;
  return spec.ranks / options.dims->back();
}

}  // namespace

const AlgorithmDefinition kDdlAllreduce{
    .name = "ddl",
    .collective = CollectiveKind::Allreduce,
    .summary = "PowerAI DDL multi-ring: reduce-scatter along each grid dimension, all-gather back",
    .options = kDims,
    .validate = validate,
    .describe = [](const AlgorithmOptions& options) { return "ddl " + formatDims(*options.dims); },
    .append = append,
    // DDL's X x Y x Z: GPUs per host x hosts per rack x racks.
    .dimsFromTopology = [](const std::vector<int>& grid, int) { return grid; },
    .costLevels = [](int, const AlgorithmOptions& options) { return *options.dims; },
    .closedFormSeconds = closedFormSeconds,
    .translationPeriod = translationPeriod,
};

}  // namespace ddl
