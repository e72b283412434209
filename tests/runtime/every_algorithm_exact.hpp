#pragma once
// The runtime's central promise, shared by the tests of every transport: every algorithm, run on real
// memory, in place and out of place, leaves every rank with the exact result, for element counts that
// leave blocks empty, uneven and large, whatever the element type.

#include <string>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/program_runner.hpp"
#include "runtime/rank_context.hpp"
#include "runtime/transport_buffer.hpp"
#include "runtime/world.hpp"

namespace ddl::testing {

struct AlgorithmShape {
  CollectiveKind kind;
  std::string algorithm;
  AlgorithmOptions options;
};

// Every algorithm in a shape that fits `ranks`: all factorisations into two dims for ddl and torus-2d,
// hierarchical at every node size, the pipelined double binary tree, NCCL's rings over several channels.
inline std::vector<AlgorithmShape> algorithmShapes(int ranks) {
  std::vector<AlgorithmShape> all;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if (algorithm->options == kNoOptions) all.push_back({algorithm->collective, std::string(algorithm->name), {}});
  all.push_back({CollectiveKind::Allreduce, "double-binary-tree", {.chunkBytes = 64 * 1024}});
  all.push_back({CollectiveKind::Allreduce, "ddl", {.dims = std::vector<int>{ranks}}});
  for (int first = 2; first < ranks; ++first)
    if (ranks % first == 0) {
      all.push_back({CollectiveKind::Allreduce, "ddl", {.dims = std::vector<int>{first, ranks / first}}});
      all.push_back({CollectiveKind::Allreduce, "torus-2d", {.dims = std::vector<int>{first, ranks / first}, .inner = "halving-doubling"}});
      all.push_back({CollectiveKind::Allreduce, "hierarchical", {.ranksPerNode = first, .inner = "double-binary-tree"}});
    }
  all.push_back({CollectiveKind::Allreduce, "hierarchical", {.ranksPerNode = ranks, .inner = "ring"}});
  // Channels side by side on the transport, each ring entering the nodes at another rank; 3 channels do not
  // divide the nodes' ranks (nor, often, the elements).
  const int perNode = ranks % 2 == 0 ? 2 : 1;
  all.push_back({CollectiveKind::Allreduce, "nccl-ring", {.ranksPerNode = perNode, .channels = 3}});
  all.push_back({CollectiveKind::Allreduce, "nccl-ring", {.ranksPerNode = ranks, .channels = 2 * ranks}});
  // NCCL's reduce-scatter and all-gather rings: every rank's own block, cut into parts by channel, whatever
  // place the channel's ring gives the rank.
  for (CollectiveKind kind : {CollectiveKind::ReduceScatter, CollectiveKind::AllGather}) {
    all.push_back({kind, "nccl-ring", {.ranksPerNode = perNode, .channels = 3}});
    all.push_back({kind, "nccl-ring", {.ranksPerNode = ranks, .channels = ranks}});
  }
  return all;
}

struct ExactnessResult {
  std::string description;  // "ring allreduce, 4 ranks, 7 float32 elements"
  std::int64_t wrong;       // over all ranks and all four runs
};

// One run out of place: the output starts as NaN, so an element no step writes counts as wrong, and so
// does every element of the input the run changes. Returns this rank's wrong elements.
inline std::int64_t wrongOutOfPlace(ProgramRunner& runner, const Program& program, const BenchCollective& collective,
                                    TransportBuffer& input, TransportBuffer& output, Elements count, Rank rank, int ranks,
                                    DataType type) {
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeOf(type);
  collective.fill(input.host(), count, rank, ranks, type);
  input.toTransport(bytes);
  const std::vector<char> given(static_cast<const char*>(input.host()), static_cast<const char*>(input.host()) + bytes);
  writeUnset(output.host(), count, type);
  output.toTransport(bytes);
  runner.run(program, input.data(), output.data(), type);
  output.fromTransport(bytes);
  input.fromTransport(bytes);
  return collective.countWrong(output.host(), count, rank, ranks, type) + countChanged(given.data(), input.host(), count, type);
}

// Every rank calls it with its own transport; every rank gets the same results.
inline std::vector<ExactnessResult> runEveryAlgorithm(World& world, Transport& transport, const std::vector<DataType>& types,
                                                      const std::vector<Elements>& counts, RunOptions options) {
  const int ranks = world.size();
  std::vector<ExactnessResult> results;
  ProgramRunner runner(transport, options);
  for (DataType type : types)
    for (const AlgorithmShape& shape : algorithmShapes(ranks))
      for (Elements count : counts) {
        const BenchCollective& collective = benchCollective(shape.kind);
        const Schedule schedule = makeSchedule(findAlgorithm(shape.kind, shape.algorithm),
                                               {shape.kind, ranks, count, static_cast<int>(sizeOf(type))}, shape.options);
        const Program program = schedule.program(world.rank());
        reserveChannels(world, transport, std::span(&program, 1));
        const std::size_t bytes = static_cast<std::size_t>(count) * sizeOf(type);
        TransportBuffer buffer(transport, bytes + 1), moved(transport, bytes + 1);
        // Three times in place: the runner prepares a program on its first run and restarts what it
        // prepared on the next, the same posts on the same memory (MPI starts its persistent requests
        // again); the third runs on other memory, where every post must follow the buffer. Then out of
        // place, from the first buffer into the other.
        std::int64_t wrong = 0;
        for (TransportBuffer* runOn : {&buffer, &buffer, &moved}) {
          collective.fill(runOn->host(), count, world.rank(), ranks, type);
          runOn->toTransport(bytes);
          runner.run(program, runOn->data(), type);
          runOn->fromTransport(bytes);
          wrong += world.sumOverRanks(collective.countWrong(runOn->host(), count, world.rank(), ranks, type));
        }
        wrong += world.sumOverRanks(wrongOutOfPlace(runner, program, collective, buffer, moved, count, world.rank(), ranks, type));
        results.push_back({schedule.description() + " " + std::string(toString(shape.kind)) + ", " + std::to_string(ranks) +
                               " ranks, " + std::to_string(count) + " " + std::string(toString(type)) + " elements",
                           wrong});
      }
  return results;
}

}  // namespace ddl::testing
