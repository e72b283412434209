#pragma once
// The configurations `ddlsim tune` ranks: every algorithm of a collective with every value of its options
// that fits the rank count, as DDL explored its multi-ring's dims and their orders per topology and size.

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/collectives/option_table.hpp"

namespace ddl {

// The pipeline chunk sizes tried for double-binary-tree on its own: NCCL's tree chunk range around the
// 512 KiB default. As an inner allreduce it keeps the default, which keeps the candidates in the hundreds.
inline constexpr std::int64_t kTunedChunkBytes[] = {128 << 10, 512 << 10, 2 << 20};

// Grids of 2 or 3 sizes, each at least 2, whose product is `ranks`, in every order: 64 -> 2x32, 32x2,
// 4x16, ..., 2x2x16, 2x16x2, ... (ordered factorisations), in a fixed order.
std::vector<std::vector<int>> orderedGrids(int ranks, std::size_t maxSizes);

// Every configuration of `kind` on `ranks` ranks of `cluster`, each valid (makeSchedule accepts it), none
// twice, in a fixed order:
// - each algorithm that takes no options;
// - double-binary-tree with each of kTunedChunkBytes;
// - ddl with every ordered grid of 2 or 3 sizes, and the cluster's own grid (DDL's X x Y x Z);
// - torus-2d on every WxH, hierarchical with every node size from 2 to ranks/2 that divides ranks, each with
//   every composable allreduce inside;
// - where `switchesReduce` (the nodes name a multicast switch), nccl-nvls and nccl-nvls-tree on NCCL's 16
//   NVLS channels and on 8, a node's GPUs per node: the caller drops those whose switches its cluster cannot
//   place (switchMisfit).
// `only`, if not empty, keeps the algorithms it names (InvalidArgument("--algorithms", ...) for a name that
// is not one of `kind`, or one that reduces in a switch where none does).
std::vector<AlgorithmChoice> tuningCandidates(CollectiveKind kind, int ranks, const ClusterShape& cluster,
                                              const std::vector<std::string>& only = {}, bool switchesReduce = false);

}  // namespace ddl
