#pragma once
// torch.distributed's process group over libddlscale: what DistributedDataParallel, ZeroRedundancyOptimizer
// and FSDP call in PyTorch 1.13 (allreduce of each gradient bucket, reduce-scatter and all-gather of shards,
// broadcast of the module's state, barrier) and the other collectives of torch's suite (reduce, gather,
// scatter, allgather_coalesced), run by ddlscale's schedules on host memory over MPI or TCP, with the
// algorithm chosen per call by name or by a tuning table, as ddlrun and ddlsim choose it.
//
// Every collective is issued in the caller's thread, in order, and completes on the group's completion
// thread (RequestCompleter): DDP's reducer waits on the work's future while backward goes on. Arguments
// torch may give but the backend cannot honour (a CUDA tensor, BAND, an int16 sum, a list of several
// tensors) are refused with a c10::Error, which Python sees as a RuntimeError, before anything runs.

#include <ddlscale/ddlscale.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/pytorch/request_completer.hpp"

namespace ddl::torch_backend {

class ProcessGroupDdlscale final : public c10d::ProcessGroup {
 public:
  // This process as `rank` of `size`, over the MPI job's ranks `worldRanks` (every rank, in order, when empty),
  // which must be torch's global ranks too: launched by mpirun. Collective over those ranks.
  ProcessGroupDdlscale(int rank, int size, const std::vector<int>& worldRanks, std::chrono::milliseconds timeout);
  // This process as `rank` of `size` over TCP, without MPI (ddl_comm_init_tcp): rank 0 listens at
  // `rootAddress`, "host:port", and the others connect there. Collective over the group's ranks.
  ProcessGroupDdlscale(int rank, int size, const std::string& rootAddress, std::chrono::milliseconds timeout);
  ~ProcessGroupDdlscale() override;

  const std::string getBackendName() const override { return "ddlscale"; }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& options = c10d::AllreduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& options = c10d::ReduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& options = c10d::ReduceScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& options = c10d::ReduceScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& options = c10d::BroadcastOptions()) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& options = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& options = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& options = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& options = c10d::GatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& options = c10d::ScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<std::int64_t>& outputSplitSizes,
                                               std::vector<std::int64_t>& inputSplitSizes,
                                               const c10d::AllToAllOptions& options = c10d::AllToAllOptions()) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& options = c10d::AllToAllOptions()) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dstRank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) override;
  // recv(src=None): from whichever rank sends first; the work's sourceRank() says which.
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& options = c10d::BarrierOptions()) override;

  // Collective, as ddl_comm_set_algorithm and ddl_comm_set_tuning: the choice for the `collective`
  // ("allreduce" or "allgather") calls issued after it. A refusal raises, and every rank keeps its choice.
  void setAlgorithm(const std::string& collective, const std::string& name, const std::string& options);
  void setTuning(const std::string& collective, const std::string& path);
  // What runs a `collective` of `bytes` bytes now: "ddl 2x2", "ring".
  std::string describe(const std::string& collective, std::size_t bytes);

  // Collective: completes what is in flight and frees the communicator; any later call raises. The
  // destructor does it too; at exit, `shutdownAll` does it for every group still alive, before MPI ends.
  void shutdown();
  static void shutdownAll();

 private:
  // The constructors' common end: the timeout on the new communicator, and the group among the live ones.
  void adopt(std::chrono::milliseconds timeout);
  // Issues one collective under the issue lock (so that requests queue in the order libddlscale runs them)
  // and hands its request to the completer; `issue` returns libddlscale's result and sets the request.
  // `buffers` are what it reads and writes, kept alive until it completes; `then` runs after it succeeded.
  template <class Issue>
  c10::intrusive_ptr<c10d::Work> issued(c10d::OpType type, std::vector<at::Tensor> outputs, std::vector<at::Tensor> buffers,
                                        Issue&& issue, std::function<void()> then = {});
  // A receive into `tensors`' one tensor (staged where it is not contiguous), issued by
  // issue(comm, bytes, request, work).
  template <class Issue>
  c10::intrusive_ptr<c10d::Work> received(c10d::OpType type, std::vector<at::Tensor>& tensors, Issue&& issue);
  ddl_comm communicator() const;
  // A reduce-scatter of `send` (the group's whole buffer, contiguous) into `output`.
  c10::intrusive_ptr<c10d::Work> reduceScatterInto(const at::Tensor& output, at::Tensor send, const c10d::ReduceOp& op,
                                                   const char* collective);
  // Every rank's `sendBytes[r]` bytes of `send` (contiguous, in rank order) to rank r, and `recvBytes[r]`
  // from rank r into `received` (contiguous, in rank order); `then` runs once it completed.
  c10::intrusive_ptr<c10d::Work> exchangedBytes(c10d::OpType type, std::vector<at::Tensor> outputs, const at::Tensor& send,
                                                const std::vector<std::size_t>& sendBytes, const at::Tensor& received,
                                                const std::vector<std::size_t>& recvBytes, std::function<void()> then);
  // All-gathers `input`'s bytes (the same length on every rank) into a buffer of size blocks of
  // `unitBytes` each, and hands it to `unpack` once the collective has completed.
  using Unpack = std::function<void(const at::Tensor& gathered, std::size_t unitBytes)>;
  c10::intrusive_ptr<c10d::Work> gatheredBytes(c10d::OpType type, std::vector<at::Tensor> outputs, const at::Tensor& input,
                                               Unpack unpack);

  std::uint64_t creation_ = 0;  // the how-manieth group of this process
  mutable std::mutex issueMutex_;
  ddl_comm comm_ = nullptr;
  RequestCompleter completer_;
};

}  // namespace ddl::torch_backend
