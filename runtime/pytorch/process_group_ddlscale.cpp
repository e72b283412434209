#include "runtime/pytorch/process_group_ddlscale.hpp"

#include <map>
#include <numeric>
#include <type_traits>
#include <utility>

#include "runtime/pytorch/mpi_bootstrap.hpp"
#include "runtime/pytorch/tensor_elements.hpp"

namespace ddl::torch_backend {
namespace {

// The groups not shut down yet, by creation: shut down at exit in the order every rank created them, since
// freeing a communicator is collective.
std::mutex liveMutex;
std::map<std::uint64_t, ProcessGroupDdlscale*> liveGroups;
std::uint64_t groupsCreated = 0;

// A libddlscale result other than success, as torch's error (a RuntimeError in Python).
void check(ddl_result result) { TORCH_CHECK(result == DDL_SUCCESS, ddl_last_error()); }

ddl_collective collectiveNamed(const std::string& name) {
  if (name == "allreduce") return DDL_ALLREDUCE;
  if (name == "allgather") return DDL_ALLGATHER;
  if (name == "reduce_scatter") return DDL_REDUCE_SCATTER;
  TORCH_CHECK(false, "ddlscale: collective: '", name,
              "' is not one whose algorithm can be chosen (allreduce, allgather, reduce_scatter)");
}

}  // namespace

ProcessGroupDdlscale::ProcessGroupDdlscale(int rank, int size, const std::vector<int>& worldRanks,
                                           std::chrono::milliseconds timeout)
    : ProcessGroup(rank, size) {
  const MpiWorld world = initialiseMpi();
  if (worldRanks.empty()) {
    TORCH_CHECK(size == world.size && rank == world.rank, "ddlscale: torch's rank ", rank, " of ", size,
                " is the MPI job's rank ", world.rank, " of ", world.size,
                ": start the job with mpirun and give torch MPI's ranks (init_method=\"ddlscale://\" does)");
  } else {
    TORCH_CHECK(static_cast<int>(worldRanks.size()) == size && rank >= 0 && rank < size && worldRanks[rank] == world.rank,
                "ddlscale: torch's global ranks are not the MPI job's: this process is MPI's rank ", world.rank,
                " but torch's global rank ", rank >= 0 && rank < static_cast<int>(worldRanks.size()) ? worldRanks[rank] : -1);
  }
  MPI_Comm members = worldRanks.empty() ? MPI_COMM_WORLD : communicatorOf(worldRanks);
  const ddl_result created = ddl_comm_init_mpi(members, &comm_);
  if (members != MPI_COMM_WORLD) MPI_Comm_free(&members);  // libddlscale has its own duplicate
  check(created);
  adopt(timeout);
}

ProcessGroupDdlscale::ProcessGroupDdlscale(int rank, int size, const std::string& rootAddress, std::chrono::milliseconds timeout)
    : ProcessGroup(rank, size) {
  check(ddl_comm_init_tcp(rank, size, rootAddress.c_str(), &comm_));
  adopt(timeout);
}

void ProcessGroupDdlscale::adopt(std::chrono::milliseconds timeout) {
  const double seconds = std::chrono::duration<double>(timeout).count();
  if (ddl_comm_set_timeout(comm_, seconds) != DDL_SUCCESS) {
    const std::string message = ddl_last_error();
    ddl_comm_destroy(comm_);
    TORCH_CHECK(false, "ddlscale: the process group's timeout of ", seconds, " s: ", message);
  }
  init();
  std::lock_guard lock(liveMutex);
  creation_ = groupsCreated++;
  liveGroups.emplace(creation_, this);
}

ProcessGroupDdlscale::~ProcessGroupDdlscale() { shutdown(); }

ddl_comm ProcessGroupDdlscale::communicator() const {
  TORCH_CHECK(comm_ != nullptr, "ddlscale: the process group was shut down");
  return comm_;
}

template <class Issue>
c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::issued(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                             std::vector<at::Tensor> buffers, Issue&& issue,
                                                             std::function<void()> then) {
  auto work = c10::make_intrusive<DdlscaleWork>(rank_, type, std::move(outputs), std::move(buffers));
  std::lock_guard lock(issueMutex_);
  ddl_request request = nullptr;
  // A receive from any rank also tells libddlscale where the work keeps its sender.
  if constexpr (std::is_invocable_v<Issue, ddl_comm, ddl_request*, DdlscaleWork&>)
    check(issue(communicator(), &request, *work));
  else
    check(issue(communicator(), &request));
  completer_.add(request, work, std::move(then));
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::allreduce(std::vector<at::Tensor>& tensors,
                                                               const c10d::AllreduceOptions& options) {
  const at::Tensor& tensor = onlyTensor(tensors, "allreduce");
  checkHostDense(tensor, "allreduce");
  const Reducible how = reducibleAs(tensor, options.reduceOp, "allreduce");
  at::Tensor data = tensor.is_contiguous() ? tensor : tensor.contiguous();
  std::function<void()> then;
  if (!data.is_same(tensor)) then = [tensor, data]() mutable { tensor.copy_(data); };
  return issued(c10d::OpType::ALLREDUCE, {tensor}, {data}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_iallreduce(comm, data.data_ptr(), data.data_ptr(), reducedCount(data, how), how.type, how.op, request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& options) {
  const at::Tensor& tensor = onlyTensor(tensors, "reduce");
  checkHostDense(tensor, "reduce");
  checkRoot(options.rootRank, options.rootTensor, size_, "reduce");
  const Reducible how = reducibleAs(tensor, options.reduceOp, "reduce");
  // An allreduce out of place, kept by the root alone: every rank ends the call as gloo's reduce leaves
  // it (the root with the result, the others with their tensors unchanged), at an allreduce's cost.
  const at::Tensor data = tensor.contiguous();
  at::Tensor result = at::empty_like(data);
  std::function<void()> then;
  if (rank_ == options.rootRank) then = [tensor, result]() mutable { tensor.copy_(result); };
  return issued(c10d::OpType::REDUCE, {tensor}, {data, result}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_iallreduce(comm, data.data_ptr(), result.data_ptr(), reducedCount(data, how), how.type, how.op, request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::reduceScatterInto(const at::Tensor& output, at::Tensor send,
                                                                       const c10d::ReduceOp& op, const char* collective) {
  checkHostDense(output, collective);
  const Reducible how = reducibleAs(output, op, collective);
  at::Tensor recv = output.is_contiguous() ? output : at::empty_like(output, at::MemoryFormat::Contiguous);
  std::function<void()> then;
  if (!recv.is_same(output)) then = [output, recv]() mutable { output.copy_(recv); };
  return issued(c10d::OpType::REDUCE_SCATTER, {output}, {send, recv}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_ireduce_scatter(comm, send.data_ptr(), recv.data_ptr(), reducedCount(recv, how), how.type, how.op, request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                    std::vector<std::vector<at::Tensor>>& inputs,
                                                                    const c10d::ReduceScatterOptions& options) {
  const at::Tensor& output = onlyTensor(outputs, "reduce_scatter");
  TORCH_CHECK(inputs.size() == 1, "ddlscale: reduce_scatter takes one list of inputs per process, got ", inputs.size());
  checkListLike(inputs.front(), output, size_, "reduce_scatter", "inputs");
  std::vector<at::Tensor> flat;
  for (const at::Tensor& input : inputs.front()) flat.push_back(input.reshape(-1));
  return reduceScatterInto(output, at::cat(flat), options.reduceOp, "reduce_scatter");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                          const c10d::ReduceScatterOptions& options) {
  checkHostDense(input, "_reduce_scatter_base");
  TORCH_CHECK(input.scalar_type() == output.scalar_type() && input.numel() == output.numel() * size_,
              "ddlscale: _reduce_scatter_base: the input must have the output's type and ", size_, " times its elements");
  return reduceScatterInto(output, input.contiguous(), options.reduceOp, "_reduce_scatter_base");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::broadcast(std::vector<at::Tensor>& tensors,
                                                               const c10d::BroadcastOptions& options) {
  const at::Tensor& tensor = onlyTensor(tensors, "broadcast");
  checkHostDense(tensor, "broadcast");
  TORCH_CHECK(options.rootTensor == 0, "ddlscale: broadcast: rootTensor must be 0 with one tensor per process");
  TORCH_CHECK(options.rootRank >= 0 && options.rootRank < size_, "ddlscale: broadcast: root rank ", options.rootRank,
              " is not one of the group's ", size_, " ranks");
  const Movement movement = movementOf(tensor);
  at::Tensor data = contiguousBytes(tensor, movement);
  std::function<void()> then;
  if (!data.is_same(tensor)) then = [tensor, data]() mutable { tensor.copy_(viewAs(data, 0, tensor)); };
  return issued(c10d::OpType::BROADCAST, {tensor}, {data}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_ibroadcast(comm, data.data_ptr(), movement.count(), movement.type, static_cast<int>(options.rootRank), request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::gatheredBytes(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                                   const at::Tensor& input, Unpack unpack) {
  const Movement movement = movementOf(input);
  const at::Tensor send = contiguousBytes(input, movement);
  at::Tensor gathered = at::empty({static_cast<std::int64_t>(movement.unitBytes) * size_}, at::kByte);
  std::function<void()> then = [gathered, unitBytes = movement.unitBytes, unpack = std::move(unpack)] { unpack(gathered, unitBytes); };
  return issued(type, std::move(outputs), {send, gathered}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_iallgather(comm, send.data_ptr(), gathered.data_ptr(), movement.count(), movement.type, request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                               std::vector<at::Tensor>& inputs,
                                                               const c10d::AllgatherOptions& /*options*/) {
  const at::Tensor& input = onlyTensor(inputs, "allgather");
  checkHostDense(input, "allgather");
  TORCH_CHECK(outputs.size() == 1, "ddlscale: allgather takes one list of outputs per process, got ", outputs.size());
  std::vector<at::Tensor>& list = outputs.front();
  checkListLike(list, input, size_, "allgather", "outputs");
  return gatheredBytes(c10d::OpType::ALLGATHER, list, input, [list](const at::Tensor& gathered, std::size_t unitBytes) mutable {
    for (std::size_t r = 0; r < list.size(); ++r) list[r].copy_(viewAs(gathered, r * unitBytes, list[r]));
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                                         std::vector<at::Tensor>& inputs,
                                                                         const c10d::AllgatherOptions& /*options*/) {
  // The inputs' bytes one after another, gathered as one buffer: each rank's inputs must match in number,
  // type and shape, as gloo's allgather_coalesced asks.
  TORCH_CHECK(static_cast<int>(outputs.size()) == size_, "ddlscale: allgather_coalesced: ", outputs.size(),
              " output lists for ", size_, " ranks");
  std::vector<at::Tensor> bytes;
  for (const at::Tensor& input : inputs) {
    checkHostDense(input, "allgather_coalesced");
    bytes.push_back(input.contiguous().reshape(-1).view(at::kByte));
  }
  for (const std::vector<at::Tensor>& list : outputs) {
    TORCH_CHECK(list.size() == inputs.size(), "ddlscale: allgather_coalesced: every output list must hold one tensor per input");
    for (std::size_t i = 0; i < list.size(); ++i) {
      checkHostDense(list[i], "allgather_coalesced");
      TORCH_CHECK(list[i].scalar_type() == inputs[i].scalar_type() && list[i].numel() == inputs[i].numel(),
                  "ddlscale: allgather_coalesced: output ", i, " of every list must have input ", i, "'s type and size");
    }
  }
  const at::Tensor packed = bytes.empty() ? at::empty({0}, at::kByte) : at::cat(bytes);
  std::vector<at::Tensor> written;
  for (const std::vector<at::Tensor>& list : outputs) written.insert(written.end(), list.begin(), list.end());
  return gatheredBytes(c10d::OpType::ALLGATHER_COALESCED, written, packed,
                       [outputs](const at::Tensor& gathered, std::size_t unitBytes) mutable {
                         for (std::size_t r = 0; r < outputs.size(); ++r) {
                           std::size_t offset = r * unitBytes;
                           for (at::Tensor& output : outputs[r]) {
                             output.copy_(viewAs(gathered, offset, output));
                             offset += static_cast<std::size_t>(output.numel()) * output.element_size();
                           }
                         }
                       });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                            std::vector<at::Tensor>& inputs, const c10d::GatherOptions& options) {
  const at::Tensor& input = onlyTensor(inputs, "gather");
  checkHostDense(input, "gather");
  checkRoot(options.rootRank, 0, size_, "gather");
  std::vector<at::Tensor> list;
  if (rank_ == options.rootRank) {
    TORCH_CHECK(outputs.size() == 1, "ddlscale: gather: the root takes one list of outputs, got ", outputs.size());
    list = outputs.front();
    checkListLike(list, input, size_, "gather", "outputs");
  } else {
    TORCH_CHECK(outputs.empty() || (outputs.size() == 1 && outputs.front().empty()),
                "ddlscale: gather: only the root (rank ", options.rootRank, ") takes outputs");
  }
  // An all-gather whose result the root alone keeps: gloo's gather sends every block to the root alone,
  // this moves the all-gather's bytes (size - 1 blocks into every rank) for the same result.
  return gatheredBytes(c10d::OpType::GATHER, list, input, [list](const at::Tensor& gathered, std::size_t unitBytes) mutable {
    for (std::size_t r = 0; r < list.size(); ++r) list[r].copy_(viewAs(gathered, r * unitBytes, list[r]));
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::scatter(std::vector<at::Tensor>& outputs,
                                                             std::vector<std::vector<at::Tensor>>& inputs,
                                                             const c10d::ScatterOptions& options) {
  const at::Tensor& output = onlyTensor(outputs, "scatter");
  checkHostDense(output, "scatter");
  checkRoot(options.rootRank, 0, size_, "scatter");
  const Movement block = movementOf(output);
  // Block r of a buffer that the root fills and broadcasts (which itself scatters the blocks, then
  // all-gathers them: van de Geijn's broadcast), so every rank reads its own block at r x unitBytes.
  at::Tensor staged = at::zeros({static_cast<std::int64_t>(block.unitBytes) * size_}, at::kByte);
  if (rank_ == options.rootRank) {
    TORCH_CHECK(inputs.size() == 1, "ddlscale: scatter: the root takes one list of inputs, got ", inputs.size());
    checkListLike(inputs.front(), output, size_, "scatter", "inputs");
    for (int r = 0; r < size_; ++r) viewAs(staged, static_cast<std::size_t>(r) * block.unitBytes, output).copy_(inputs.front()[r]);
  } else {
    TORCH_CHECK(inputs.empty() || (inputs.size() == 1 && inputs.front().empty()),
                "ddlscale: scatter: only the root (rank ", options.rootRank, ") takes inputs");
  }
  const std::size_t offset = static_cast<std::size_t>(rank_) * block.unitBytes;
  std::function<void()> then = [output, staged, offset]() mutable { output.copy_(viewAs(staged, offset, output)); };
  return issued(c10d::OpType::SCATTER, {output}, {staged}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_ibroadcast(comm, staged.data_ptr(), block.count() * static_cast<std::size_t>(size_), block.type,
                          static_cast<int>(options.rootRank), request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                     const c10d::AllgatherOptions& options) {
  checkHostDense(input, "_allgather_base");
  checkHostDense(output, "_allgather_base");
  TORCH_CHECK(output.scalar_type() == input.scalar_type() && output.numel() == input.numel() * size_,
              "ddlscale: _allgather_base: the output must have the input's type and ", size_, " times its elements");
  TORCH_CHECK(output.is_contiguous(), "ddlscale: _allgather_base: the output must be contiguous");
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (const at::Tensor& piece : output.view(-1).chunk(size_)) outputs.front().push_back(piece.view(input.sizes()));
  std::vector<at::Tensor> inputs{input};
  return allgather(outputs, inputs, options);
}

// The bytes of `tensor` in its own order, as a contiguous uint8 tensor (a view where it is contiguous).
at::Tensor bytesOf(const at::Tensor& tensor) { return tensor.contiguous().reshape(-1).view(at::kByte); }

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::exchangedBytes(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                                    const at::Tensor& send, const std::vector<std::size_t>& sendBytes,
                                                                    const at::Tensor& received,
                                                                    const std::vector<std::size_t>& recvBytes,
                                                                    std::function<void()> then) {
  auto offsets = [](const std::vector<std::size_t>& counts) {
    std::vector<std::size_t> at(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r) at[r] = at[r - 1] + counts[r - 1];
    return at;
  };
  const std::vector<std::size_t> sendAt = offsets(sendBytes), recvAt = offsets(recvBytes);
  return issued(type, std::move(outputs), {send, received}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_ialltoallv(comm, send.data_ptr(), sendBytes.data(), sendAt.data(), received.data_ptr(), recvBytes.data(),
                          recvAt.data(), DDL_UINT8, request);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                                   std::vector<std::int64_t>& outputSplitSizes,
                                                                   std::vector<std::int64_t>& inputSplitSizes,
                                                                   const c10d::AllToAllOptions& /*options*/) {
  checkHostDense(input, "all_to_all_single");
  checkHostDense(output, "all_to_all_single");
  TORCH_CHECK(input.scalar_type() == output.scalar_type(), "ddlscale: all_to_all_single: the output must have the input's type");
  // Split along the first dimension: by the sizes given, or into equal parts where none are.
  auto splitBytes = [&](const at::Tensor& tensor, const std::vector<std::int64_t>& sizes, const char* which) {
    TORCH_CHECK(tensor.dim() > 0, "ddlscale: all_to_all_single: a ", which, " of no dimension cannot be split");
    const std::int64_t rows = tensor.size(0);
    const std::size_t rowBytes = rows == 0 ? 0 : static_cast<std::size_t>(tensor.numel() / rows) * tensor.element_size();
    std::vector<std::size_t> bytes;
    if (sizes.empty()) {
      TORCH_CHECK(rows % size_ == 0, "ddlscale: all_to_all_single: the ", which, "'s ", rows, " rows do not split into ", size_,
                  " equal parts");
      bytes.assign(static_cast<std::size_t>(size_), static_cast<std::size_t>(rows / size_) * rowBytes);
    } else {
      TORCH_CHECK(static_cast<int>(sizes.size()) == size_ && std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0}) == rows,
                  "ddlscale: all_to_all_single: the ", which, "'s split sizes must be one per rank and add up to its ", rows, " rows");
      for (const std::int64_t split : sizes) bytes.push_back(static_cast<std::size_t>(split) * rowBytes);
    }
    return bytes;
  };
  const std::vector<std::size_t> sendBytes = splitBytes(input, inputSplitSizes, "input");
  const std::vector<std::size_t> recvBytes = splitBytes(output, outputSplitSizes, "output");
  at::Tensor received = output.is_contiguous() ? output.view(-1).view(at::kByte) : at::empty({output.numel() * output.element_size()}, at::kByte);
  std::function<void()> then;
  if (!output.is_contiguous()) then = [output, received]() mutable { output.copy_(viewAs(received, 0, output)); };
  return exchangedBytes(c10d::OpType::ALLTOALL_BASE, {output}, bytesOf(input), sendBytes, received, recvBytes, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                                              const c10d::AllToAllOptions& /*options*/) {
  TORCH_CHECK(static_cast<int>(inputs.size()) == size_ && static_cast<int>(outputs.size()) == size_,
              "ddlscale: all_to_all takes one input and one output per rank, got ", inputs.size(), " and ", outputs.size());
  std::vector<at::Tensor> sendParts;
  std::vector<std::size_t> sendBytes, recvBytes;
  std::size_t received = 0;
  for (int r = 0; r < size_; ++r) {
    checkHostDense(inputs[r], "all_to_all");
    checkHostDense(outputs[r], "all_to_all");
    TORCH_CHECK(inputs[r].scalar_type() == outputs[r].scalar_type(), "ddlscale: all_to_all: every output must have the inputs' type");
    sendParts.push_back(bytesOf(inputs[r]));
    sendBytes.push_back(static_cast<std::size_t>(sendParts.back().numel()));
    recvBytes.push_back(static_cast<std::size_t>(outputs[r].numel()) * outputs[r].element_size());
    received += recvBytes.back();
  }
  at::Tensor staged = at::empty({static_cast<std::int64_t>(received)}, at::kByte);
  std::function<void()> then = [outputs, staged, recvBytes]() mutable {
    std::size_t offset = 0;
    for (std::size_t r = 0; r < outputs.size(); ++r) {
      outputs[r].copy_(viewAs(staged, offset, outputs[r]));
      offset += recvBytes[r];
    }
  };
  return exchangedBytes(c10d::OpType::ALLTOALL, outputs, at::cat(sendParts), sendBytes, staged, recvBytes, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::send(std::vector<at::Tensor>& tensors, int dstRank, int tag) {
  const at::Tensor& tensor = onlyTensor(tensors, "send");
  checkHostDense(tensor, "send");
  const at::Tensor data = bytesOf(tensor);
  return issued(c10d::OpType::SEND, {tensor}, {data}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_isend(comm, data.data_ptr(), static_cast<std::size_t>(data.numel()), DDL_UINT8, dstRank, tag, request);
  });
}

template <class Issue>
c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::received(c10d::OpType type, std::vector<at::Tensor>& tensors, Issue&& issue) {
  const at::Tensor& tensor = onlyTensor(tensors, "recv");
  checkHostDense(tensor, "recv");
  at::Tensor data = tensor.is_contiguous() ? tensor.view(-1).view(at::kByte)
                                           : at::empty({tensor.numel() * tensor.element_size()}, at::kByte);
  std::function<void()> then;
  if (!tensor.is_contiguous()) then = [tensor, data]() mutable { tensor.copy_(viewAs(data, 0, tensor)); };
  return issued(type, {tensor}, {data}, [&](ddl_comm comm, ddl_request* request, DdlscaleWork& work) {
    return issue(comm, data, request, work);
  }, std::move(then));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) {
  return received(c10d::OpType::RECV, tensors, [&](ddl_comm comm, const at::Tensor& data, ddl_request* request, DdlscaleWork&) {
    return ddl_irecv(comm, data.data_ptr(), static_cast<std::size_t>(data.numel()), DDL_UINT8, srcRank, tag, request);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::recvAnysource(std::vector<at::Tensor>& tensors, int tag) {
  return received(c10d::OpType::RECVANYSOURCE, tensors, [&](ddl_comm comm, const at::Tensor& data, ddl_request* request,
                                                            DdlscaleWork& work) {
    return ddl_irecv_any(comm, data.data_ptr(), static_cast<std::size_t>(data.numel()), DDL_UINT8, tag, work.sourceSlot(), request);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::barrier(const c10d::BarrierOptions& /*options*/) {
  auto work = c10::make_intrusive<DdlscaleWork>(rank_, c10d::OpType::BARRIER, std::vector<at::Tensor>{});
  {
    std::lock_guard lock(issueMutex_);
    check(ddl_barrier(communicator()));
  }
  // The barrier returned after this rank's earlier collectives; their works complete before its own.
  completer_.drain();
  work->complete(nullptr);
  return work;
}

void ProcessGroupDdlscale::setAlgorithm(const std::string& collective, const std::string& name, const std::string& options) {
  std::lock_guard lock(issueMutex_);
  check(ddl_comm_set_algorithm(communicator(), collectiveNamed(collective), name.c_str(), options.c_str()));
}

void ProcessGroupDdlscale::setTuning(const std::string& collective, const std::string& path) {
  std::lock_guard lock(issueMutex_);
  check(ddl_comm_set_tuning(communicator(), collectiveNamed(collective), path.c_str()));
}

std::string ProcessGroupDdlscale::describe(const std::string& collective, std::size_t bytes) {
  std::lock_guard lock(issueMutex_);
  char text[256];
  check(ddl_comm_describe(communicator(), collectiveNamed(collective), bytes, text, sizeof text));
  return text;
}

void ProcessGroupDdlscale::shutdown() {
  {
    std::lock_guard lock(liveMutex);
    liveGroups.erase(creation_);
  }
  std::lock_guard lock(issueMutex_);
  if (!comm_) return;
  completer_.drain();
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) ddl_comm_destroy(comm_);  // after MPI_Finalize nothing of MPI may be called, nor is needed
  comm_ = nullptr;
}

void ProcessGroupDdlscale::shutdownAll() {
  std::vector<ProcessGroupDdlscale*> groups;
  {
    std::lock_guard lock(liveMutex);
    for (const auto& [creation, group] : liveGroups) groups.push_back(group);
  }
  for (ProcessGroupDdlscale* group : groups) group->shutdown();
}

}  // namespace ddl::torch_backend
