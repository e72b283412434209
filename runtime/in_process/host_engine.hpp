#pragma once
// The in-process engine on host memory: a message is one memcpy by the thread that completes the match,
// a reduction is addInto on the posting thread, and compute is reproduced as the job asks (host_compute.hpp). It makes every schedule
// runnable as threads of one process, without MPI: the transport's tests, and a shared-memory baseline.

#include <cstring>

#include "runtime/compute/host_compute.hpp"
#include "runtime/host_reduce.hpp"
#include "runtime/in_process/in_process_engine.hpp"

namespace ddl {

class HostEngine final : public InProcessEngine {
 public:
  explicit HostEngine(HostCompute compute = HostCompute::Sleep) : compute_(compute) {}
  std::string name() const override { return "threads"; }
  std::shared_ptr<Completion> copy(Rank, Rank, Channel, void* destination, const void* source, std::size_t bytes) override {
    std::memcpy(destination, source, bytes);
    return nullptr;
  }
  std::shared_ptr<Completion> reduce(Rank, void* into, const void* local, const void* from, std::size_t count,
                                     DataType type, ReduceOp op) override {
    reduceInto(into, local, from, count, type, op);
    return nullptr;
  }
  bool memoryIsHost() const override { return true; }
  void* allocate(Rank, std::size_t bytes) override { return ::operator new(bytes); }
  void deallocate(Rank, void* memory) override { ::operator delete(memory); }
  void upload(Rank, void* to, const void* from, std::size_t bytes) override { std::memcpy(to, from, bytes); }
  void download(Rank, void* to, const void* from, std::size_t bytes) override { std::memcpy(to, from, bytes); }
  void copy(Rank, void* to, const void* from, std::size_t bytes) override { std::memcpy(to, from, bytes); }
  std::string deviceDescription(Rank) const override { return "-1 [host] host memory"; }
  std::unique_ptr<ComputeEmulator> computeEmulator(Rank) override { return makeHostComputeEmulator(compute_); }

 private:
  HostCompute compute_;
};

}  // namespace ddl
