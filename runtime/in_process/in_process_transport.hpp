#pragma once
// The Transport of one rank among threads of one process: messages through an InProcessFabric, moved and
// reduced by its engine (host memory, or GPUs through the CUDA peer engine). A wait blocks until the
// fabric reports news for this rank, and polls the engine's unfinished work at its poll interval.

#include "runtime/in_process/in_process_fabric.hpp"
#include "runtime/transport.hpp"

namespace ddl {

class InProcessTransport final : public Transport {
 public:
  InProcessTransport(InProcessFabric& fabric, Rank rank) : fabric_(fabric), engine_(fabric.engine()), rank_(rank) {}

  Rank rank() const override { return rank_; }
  int size() const override { return fabric_.ranks(); }
  RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) override;
  RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) override;
  RequestId postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) override;
  void waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) override;
  // Every rank is in this process: ending the job is ending the process.
  [[noreturn]] void abortJob(const std::string& message) override;

  bool memoryIsHost() const override { return engine_.memoryIsHost(); }
  void* allocate(std::size_t bytes) override { return engine_.allocate(rank_, bytes); }
  void deallocate(void* memory) override { engine_.deallocate(rank_, memory); }
  void upload(void* to, const void* from, std::size_t bytes) override { engine_.upload(rank_, to, from, bytes); }
  void download(void* to, const void* from, std::size_t bytes) override { engine_.download(rank_, to, from, bytes); }
  void copy(void* to, const void* from, std::size_t bytes) override { engine_.copy(rank_, to, from, bytes); }
  std::string deviceDescription() const override { return engine_.deviceDescription(rank_); }

 private:
  RequestId track(std::shared_ptr<PostedWork> work);

  InProcessFabric& fabric_;
  InProcessEngine& engine_;
  Rank rank_;
  RequestId next_ = 0;
  std::vector<std::pair<RequestId, std::shared_ptr<PostedWork>>> inFlight_;
};

}  // namespace ddl
