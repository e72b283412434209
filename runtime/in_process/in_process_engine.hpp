#pragma once
// What the ranks of one process run on, for the in-process transport: where their memory is, how a
// message's bytes move once its send and receive are both posted, and how a reduction runs. The host
// engine uses host memory and memcpy (every rank a thread: the transport's own tests, and a CPU
// baseline); the CUDA peer engine uses GPU memory and cudaMemcpyPeerAsync.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "algorithms/schedule/step.hpp"
#include "runtime/completion.hpp"
#include "runtime/compute/compute_emulator.hpp"
#include "runtime/data_type.hpp"
#include "runtime/reduce_op.hpp"

namespace ddl {

class InProcessEngine {
 public:
  virtual ~InProcessEngine() = default;
  virtual std::string name() const = 0;

  // Called first by the thread that drives `rank` (a GPU engine makes the rank's device current).
  virtual void bindThread(Rank rank) { (void)rank; }

  // Starts moving `bytes` from rank `from`'s memory at `source` to rank `to`'s at `destination`. Returns
  // what tells when it has finished, or null if it already has. Any thread may call it.
  virtual std::shared_ptr<Completion> copy(Rank from, Rank to, Channel channel, void* destination, const void* source,
                                           std::size_t bytes) = 0;
  // Starts into[i] = local[i] op from[i] in rank `rank`'s memory (Transport::postReduce); null if it has
  // already finished.
  virtual std::shared_ptr<Completion> reduce(Rank rank, void* into, const void* local, const void* from, std::size_t count,
                                             DataType type, ReduceOp op) = 0;
  // How often to look at unfinished Completions: they cannot wake a waiting thread themselves.
  virtual std::chrono::microseconds pollInterval() const { return std::chrono::microseconds(20); }

  virtual bool memoryIsHost() const = 0;
  virtual void* allocate(Rank rank, std::size_t bytes) = 0;
  virtual void deallocate(Rank rank, void* memory) = 0;
  virtual void upload(Rank rank, void* to, const void* from, std::size_t bytes) = 0;
  virtual void download(Rank rank, void* to, const void* from, std::size_t bytes) = 0;
  virtual void copy(Rank rank, void* to, const void* from, std::size_t bytes) = 0;  // finished when it returns
  virtual std::string deviceDescription(Rank rank) const = 0;

  virtual std::unique_ptr<ComputeEmulator> computeEmulator(Rank rank) = 0;
};

}  // namespace ddl
