#include "algorithms/tuning/nccl_tuning_model.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "algorithms/collectives/nvls_shards.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// NVIDIA/nccl v2.23.4-1, src/graph/tuning.cc (read), in microseconds and GB/s. Rows by GPU generation
// (Volta, Ampere, Hopper), columns by nodes (1, 2, more).
constexpr double kLlMaxBws[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}};
constexpr double kPerChMaxRingLL128Bws[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}};
constexpr double kPerChMaxTreeLL128Bws[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}};
constexpr double kPerChMaxTreeBws[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
// Tree: the correction of its bandwidth at powers of two from 64 B, for LL, LL128, Simple (by Protocol order
// below). Its latencies are nccl_protocol's (costsOf(protocol, NcclLatencyRow::Tree, ...)).
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// A ring's steps across nodes wait at least this for the network proxy to post (getNetOverhead, Intel:
// ddlsim's topologies do not say the CPU's maker), three times over under Simple.
constexpr double kNetOverheadMicroseconds = 1.0;
// Threads per channel and work per thread before NCCL uses a channel (src/include/device.h, comm.h).
constexpr int kSimpleThreads = 512;
constexpr int kLLThreads = 512;
constexpr int kLL128Threads = 640;
constexpr int kSimpleThreadThreshold = 64;
constexpr int kLLThreadThreshold = 8;  // times the ranks, for the ring
constexpr int kLL128ThreadThreshold = 8;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// NVLS (src/graph/search.cc and tuning.cc): the speeds NCCL's search tries within a Hopper node, fastest
// first, in GB/s per channel; NVLS's latency on NVLink under Simple, us (hwLat, baseLat 0); and the ratio by
// which its model turns NVLS's bus bandwidth into algorithm bandwidth.
constexpr double kSm90IntraSpeeds[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kSm90InterSpeeds[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12};
constexpr double kNvlsLatencyMicroseconds = 25;
constexpr double kNvlsTreeNetworkHopMicroseconds = 14;  // hwLat[NET][NVLSTree][Simple]
constexpr double kNvlsBusToAlgorithm = 5.0 / 6.0;

// NCCL's index of LL, LL128 and Simple in its tables.
int column(Protocol protocol) { return protocol == Protocol::LL ? 0 : protocol == Protocol::LL128 ? 1 : 2; }
int generation(const NcclJob& job) { return job.computeCapability >= 90 ? 2 : job.computeCapability >= 80 ? 1 : 0; }
int nodeColumn(const NcclJob& job) { return job.nodes <= 2 ? job.nodes - 1 : 2; }
int log2Floor(double value) { return value >= 1 ? static_cast<int>(std::floor(std::log2(value))) : -1; }

// On one node NCCL looks at the GPU for LL's ceiling; across nodes at the CPU, which is taken as Intel's row.
double llMaxBusBandwidth(const NcclJob& job) {
  return kLlMaxBws[job.nodes == 1 ? generation(job) : 0][nodeColumn(job)];
}

void requireWholeNodes(const NcclJob& job) {
  if (job.ranks < 1 || job.nodes < 1 || job.ranks % job.nodes != 0)
    throw InvalidArgument("ranks", std::to_string(job.ranks) + " ranks do not fill " + std::to_string(job.nodes) + " nodes evenly");
}

}  // namespace

bool ncclEnables(const NcclJob& job, Protocol protocol) {
  if (protocol != Protocol::LL128) return true;
  const int cc = job.computeCapability;
  return job.intraNode == NcclHardware::NVLink && (cc == 70 || cc == 80 || cc == 90);
}

double ncclRingModelSeconds(const NcclJob& job, Protocol protocol, double bytes, CollectiveKind kind) {
  requireWholeNodes(job);
  if (!ncclEnables(job, protocol) || job.ranks < 2) return kInfinity;
  const bool allreduce = kind == CollectiveKind::Allreduce;
  const double gbps = job.ringBusBandwidthBps / 1e9;
  double busBw = gbps;
  if (protocol == Protocol::LL) busBw = std::min(llMaxBusBandwidth(job), gbps * costsOf(Protocol::LL).bandwidthShare);
  if (protocol == Protocol::LL128)
    busBw = std::min(gbps * costsOf(Protocol::LL128).bandwidthShare, job.channels * kPerChMaxRingLL128Bws[generation(job)][nodeColumn(job)]);
  // An allreduce's ring goes round twice (reduce-scatter, then all-gather); the halves once.
  const int steps = (allreduce ? 2 : 1) * (job.ranks - 1);
  const double algBw = busBw * job.ranks / steps;

  const ProtocolCosts costs = costsOf(protocol);
  double intraLat = costs.hopSeconds(job.intraNode) * 1e6;
  // With one rank per node every hop is the network's, which NCCL costs with its tree's network latency.
  double interLat = costsOf(protocol, NcclLatencyRow::Ring, job.ranksPerNode() == 1).networkHopSeconds * 1e6;
  if (job.nodes > 1) intraLat = std::max(intraLat, kNetOverheadMicroseconds * (protocol == Protocol::Simple ? 3 : 1));
  const int interSteps = job.nodes > 1 ? (allreduce ? 2 : 1) * (job.nodes - 1) : 0;
  double latency = costs.baseLatencySeconds * 1e6 + (steps - interSteps) * intraLat + interSteps * interLat;
  // The plateau NCCL measured for allreduce rings across nodes once each rank's share of a channel reaches 64
  // bytes (ncclTopoGetAlgoTime: allreduce only).
  if (allreduce && protocol == Protocol::Simple && job.nodes > 1 && bytes / (job.channels * job.ranks) >= 64)
    latency *= job.computeCapability < 80 ? 1.9 : 1.4;
  return (latency + bytes / (1000 * algBw)) * 1e-6;
}

double ncclTreeModelSeconds(const NcclJob& job, Protocol protocol, double bytes) {
  requireWholeNodes(job);
  if (!ncclEnables(job, protocol) || job.ranks < 2) return kInfinity;
  const int g = generation(job);
  const int n = nodeColumn(job);
  double busBw = std::min(job.ringBusBandwidthBps / 1e9 * 0.92, job.channels * kPerChMaxTreeBws[g][n]);
  if (protocol == Protocol::LL) busBw = std::min(busBw / 3.8, llMaxBusBandwidth(job));
  if (protocol == Protocol::LL128)
    busBw = std::min(busBw * (job.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), job.channels * kPerChMaxTreeLL128Bws[g][n]);
  double algBw = busBw * 0.5;
  const int logSize = log2Floor(bytes / 64);
  if (logSize >= 0 && logSize < 23) algBw *= kTreeCorrection[column(protocol)][logSize];
  const ProtocolCosts tree = costsOf(protocol, NcclLatencyRow::Tree, false);
  const double intraLat = tree.hopSeconds(job.intraNode) * 1e6;
  const double interLat = tree.networkHopSeconds * 1e6;
  const double latency = tree.baseLatencySeconds * 1e6 +
                         2 * ((job.ranksPerNode() - 1) * intraLat + std::max(0, log2Floor(job.nodes)) * interLat);
  return (latency + bytes / (1000 * algBw)) * 1e-6;
}

double ncclNvlsModelSeconds(const NcclJob& job, Protocol protocol, double bytes, CollectiveKind kind) {
  requireWholeNodes(job);
  if (!job.nvls || job.nodes != 1 || job.ranks < 2 || protocol != Protocol::Simple || kind != CollectiveKind::Allreduce)
    return kInfinity;
  const double nvlink = job.nvlinkBandwidthBps / 1e9;
  for (double speed : kSm90IntraSpeeds)
    if ((job.ranks + 1) * speed <= nvlink && job.ranks * speed <= nvlink) {
      const double algBw = job.ranks * speed * kNvlsBusToAlgorithm;
      return (kNvlsLatencyMicroseconds + bytes / (1000 * algBw)) * 1e-6;
    }
  return kInfinity;  // no speed fits: NCCL's search finds no NVLS graph
}

double ncclNvlsTreeModelSeconds(const NcclJob& job, Protocol protocol, double bytes, CollectiveKind kind) {
  requireWholeNodes(job);
  if (!job.nvls || job.nodes < 2 || protocol != Protocol::Simple || kind != CollectiveKind::Allreduce) return kInfinity;
  const double nvlink = job.nvlinkBandwidthBps / 1e9;
  const double network = job.nvlsHeadNetworkBandwidthBps / 1e9;
  const int perNode = job.ranksPerNode();
  const double* const end = std::end(kSm90InterSpeeds);
  const double* intra = std::find_if(std::begin(kSm90InterSpeeds), end,
                                     [&](double speed) { return (perNode + 1) * speed <= nvlink && speed <= network; });
  if (intra == end) return kInfinity;  // no speed fits: NCCL's search finds no NVLS graph
  const double inter = *std::find_if(std::begin(kSm90InterSpeeds), intra + 1,
                                     [&](double speed) { return speed <= network && speed < 2 * *intra; });
  const double perChannel = std::min(*intra, job.nodes <= 2 ? inter : inter / 2);
  const double algBw = perNode * perChannel * kNvlsBusToAlgorithm;
  const double latency = kNvlsLatencyMicroseconds + 2 * log2Floor(job.nodes) * kNvlsTreeNetworkHopMicroseconds;
  return (latency + bytes / (1000 * algBw)) * 1e-6;
}

int ncclChannelsFor(const NcclJob& job, NcclAlgorithm algorithm, Protocol protocol, double bytes) {
  const int threads = protocol == Protocol::LL ? kLLThreads : protocol == Protocol::LL128 ? kLL128Threads : kSimpleThreads;
  // A ring under LL waits on every rank in turn, so it wants each channel's work the more, the more ranks.
  const double llThreshold = kLLThreadThreshold * (algorithm == NcclAlgorithm::Ring ? static_cast<double>(job.ranks) : 1.0);
  const double threshold = protocol == Protocol::LL      ? llThreshold
                           : protocol == Protocol::LL128 ? kLL128ThreadThreshold
                                                         : kSimpleThreadThreshold;
  int channels = std::max(1, job.channels);
  while (channels >= 2 && bytes < channels * threads * threshold) --channels;
  return channels;
}

std::string NcclChoice::label() const { return algorithm.label() + ", " + std::string(toString(protocol)); }

NcclChoice ncclChoice(const NcclJob& job, CollectiveKind kind, double bytes, std::optional<Protocol> forced) {
  requireWholeNodes(job);
  NcclChoice choice;
  choice.protocol = forced.value_or(Protocol::Simple);
  choice.modelSeconds = kInfinity;
  for (NcclAlgorithm algorithm : {NcclAlgorithm::Ring, NcclAlgorithm::Tree, NcclAlgorithm::Nvls, NcclAlgorithm::NvlsTree})
    for (Protocol protocol : allProtocols()) {
      if (forced && protocol != *forced) continue;
      // NCCL's tree is an allreduce; its reduce-scatter and all-gather run rings (or PAT, NVLS, CollNet).
      if (algorithm == NcclAlgorithm::Tree && kind != CollectiveKind::Allreduce) continue;
      const double seconds = algorithm == NcclAlgorithm::Ring   ? ncclRingModelSeconds(job, protocol, bytes, kind)
                             : algorithm == NcclAlgorithm::Tree ? ncclTreeModelSeconds(job, protocol, bytes)
                             : algorithm == NcclAlgorithm::Nvls ? ncclNvlsModelSeconds(job, protocol, bytes, kind)
                                                                : ncclNvlsTreeModelSeconds(job, protocol, bytes, kind);
      if (seconds < choice.modelSeconds) {
        choice.modelSeconds = seconds;
        choice.ncclAlgorithm = algorithm;
        choice.protocol = protocol;
      }
    }
  if (choice.ncclAlgorithm == NcclAlgorithm::Nvls) {
    choice.algorithm.algorithm = &findAlgorithm(kind, "nccl-nvls");
    choice.algorithm.options.channels = kNcclNvlsChannels;
    return choice;
  }
  if (choice.ncclAlgorithm == NcclAlgorithm::NvlsTree) {
    choice.algorithm.algorithm = &findAlgorithm(kind, "nccl-nvls-tree");
    choice.algorithm.options.channels = kNcclNvlsChannels;
    choice.algorithm.options.ranksPerNode = job.ranksPerNode();
    // NCCL's shard (src/enqueue.cc calcCollChunking): 128 KiB, 64 KiB from 4 nodes.
    choice.algorithm.options.chunkBytes = job.nodes >= 4 ? kNcclNvlsTreeManyNodesShardBytes : kNcclNvlsDefaultShardBytes;
    return choice;
  }
  const bool tree = choice.ncclAlgorithm == NcclAlgorithm::Tree;
  choice.algorithm.algorithm = &findAlgorithm(kind, tree ? "nccl-tree" : "nccl-ring");
  choice.algorithm.options.channels = ncclChannelsFor(job, choice.ncclAlgorithm, choice.protocol, bytes);
  choice.algorithm.options.ranksPerNode = job.ranksPerNode();
  return choice;
}

}  // namespace ddl
