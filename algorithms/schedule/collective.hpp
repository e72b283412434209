#pragma once
// What a schedule computes: the collective, its ranks and its buffer.

#include <optional>
#include <string_view>

#include "algorithms/schedule/range.hpp"
#include "common/limits.hpp"

namespace ddl {

enum class CollectiveKind {
  // Every rank ends with the element-wise sum over all ranks of the whole buffer.
  Allreduce,
  // Rank r ends with the sum over all ranks of block r (blockOf(buffer, ranks, r)).
  ReduceScatter,
  // Rank r starts with block r; every rank ends with every rank's block.
  AllGather,
};

std::string_view toString(CollectiveKind kind);
std::optional<CollectiveKind> parseCollectiveKind(std::string_view name);

// nccl-tests' bus bandwidth factor: what each rank's links must carry relative to the algorithm bandwidth
// (allreduce 2(n-1)/n, reduce-scatter and all-gather (n-1)/n; 0 on one rank). busbw = algbw x this, in
// every table and results file ddlsim and ddlrun write.
double busBandwidthFactor(CollectiveKind kind, int ranks);

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::Allreduce;
  int ranks = 1;
  Elements elements = 0;
  int elementBytes = 4;
  // Participants beyond the ranks that reduce inside the network: an NVSwitch that sums what GPUs load
  // through its multicast address and writes one store to every GPU (NCCL's NVLS). They run programs as
  // ranks do (participants ranks .. ranks + switches - 1, one per node), but hold nothing at the start, owe
  // nothing at the end, and reduce as data passes through them; only a platform that places them on a
  // switch (topologies/platform_with_switches.hpp) can run them.
  int switches = 0;

  int participants() const { return ranks + switches; }
  double bytes() const { return static_cast<double>(elements) * elementBytes; }
  Range buffer() const { return {0, elements}; }
  // What each byte of its messages costs on a link. A schedule that reduces in switches gets 5/6 of what
  // the links carry: NCCL's tuning model rates NVLS and NVLS-tree at 5/6 of its channels' links
  // (src/graph/tuning.cc, v2.23.4-1: "ratio *= 5.0/6.0", read), what multimem loads and stores through a
  // switch deliver against plain copies. Carried as bytes on the wire, not as slower links, so that a
  // training iteration whose other buckets run rings on the same links gives them their full rate.
  double wireBytesPerByte() const { return switches > 0 ? kSwitchWireBytesPerByte : 1; }
  static constexpr double kSwitchWireBytesPerByte = 6.0 / 5.0;
};

}  // namespace ddl
