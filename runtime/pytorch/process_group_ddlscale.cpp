#include "runtime/pytorch/process_group_ddlscale.hpp"

#include <cstring>
#include <map>
#include <utility>

#include "runtime/pytorch/mpi_bootstrap.hpp"

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
  TORCH_CHECK(false, "ddlscale: collective: '", name, "' is not one whose algorithm can be chosen (allreduce, allgather)");
}

// The one tensor of a call on host memory, as c10d passes a list for the multi-device calls of old.
const at::Tensor& onlyTensor(const std::vector<at::Tensor>& tensors, const char* collective) {
  TORCH_CHECK(tensors.size() == 1, "ddlscale: ", collective, " takes one tensor per process, got ", tensors.size());
  return tensors.front();
}

void checkHostDense(const at::Tensor& tensor, const char* collective) {
  TORCH_CHECK(tensor.device().is_cpu(), "ddlscale: ", collective, " of a tensor on ", tensor.device(),
              ": this build of the backend runs on host memory (CPU tensors) only");
  TORCH_CHECK(tensor.layout() == c10::kStrided, "ddlscale: ", collective, " of a ", tensor.layout(),
              " tensor: only dense tensors are supported");
}

// The type as Python names it (torch.int64), where c10 says "Long".
std::string pythonName(at::ScalarType type) {
  switch (type) {
    case at::kByte: return "torch.uint8";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kBool: return "torch.bool";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    default: return std::string("torch ") + c10::toString(type);
  }
}

ddl_datatype summable(const at::Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case at::kFloat: return DDL_FLOAT32;
    case at::kDouble: return DDL_FLOAT64;
    case at::kHalf: return DDL_FLOAT16;
    case at::kBFloat16: return DDL_BFLOAT16;
    default:
      TORCH_CHECK(false, "ddlscale: allreduce of ", pythonName(tensor.scalar_type()),
                  " tensors: ddlscale sums torch.float32, float64, float16 and bfloat16");
  }
}

// Collectives that only move data (broadcast, all-gather) move any element type: as libddlscale moves its
// float types bit for bit, a tensor's bytes go as elements of the widest of them that divides their count,
// or as float16 after a padding byte where the count is odd (a bool or uint8 tensor of odd length).
struct Movement {
  std::size_t bytes = 0;      // the tensor's
  std::size_t unitBytes = 0;  // what moves: `bytes`, or one more where it is odd
  ddl_datatype type = DDL_FLOAT16;
  std::size_t count() const { return unitBytes / (type == DDL_FLOAT64 ? 8 : type == DDL_FLOAT32 ? 4 : 2); }
  bool padded() const { return unitBytes != bytes; }
};

Movement movementOf(const at::Tensor& tensor) {
  Movement movement;
  movement.bytes = static_cast<std::size_t>(tensor.numel()) * tensor.element_size();
  movement.unitBytes = movement.bytes + movement.bytes % 2;
  movement.type = movement.unitBytes % 8 == 0 ? DDL_FLOAT64 : movement.unitBytes % 4 == 0 ? DDL_FLOAT32 : DDL_FLOAT16;
  return movement;
}

// `tensor`'s bytes in a contiguous buffer of `unitBytes` (itself where it is contiguous and needs no padding).
at::Tensor contiguousBytes(const at::Tensor& tensor, const Movement& movement) {
  if (tensor.is_contiguous() && !movement.padded()) return tensor;
  at::Tensor staged = at::zeros({static_cast<std::int64_t>(movement.unitBytes)}, at::kByte);
  const at::Tensor contiguous = tensor.contiguous();
  if (movement.bytes > 0) std::memcpy(staged.data_ptr(), contiguous.data_ptr(), movement.bytes);
  return staged;
}

// The tensor shaped like `like` at byte `offset` of a staging buffer.
at::Tensor viewAs(const at::Tensor& staged, std::size_t offset, const at::Tensor& like) {
  const auto bytes = static_cast<std::int64_t>(like.numel()) * like.element_size();
  return staged.view(at::kByte).narrow(0, static_cast<std::int64_t>(offset), bytes).view(like.scalar_type()).view(like.sizes());
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
  check(issue(communicator(), &request));
  completer_.add(request, work, std::move(then));
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::allreduce(std::vector<at::Tensor>& tensors,
                                                               const c10d::AllreduceOptions& options) {
  const at::Tensor& tensor = onlyTensor(tensors, "allreduce");
  checkHostDense(tensor, "allreduce");
  TORCH_CHECK(options.reduceOp == c10d::ReduceOp::SUM, "ddlscale: allreduce: only ReduceOp.SUM is supported");
  const ddl_datatype type = summable(tensor);
  at::Tensor data = tensor.is_contiguous() ? tensor : tensor.contiguous();
  std::function<void()> then;
  if (!data.is_same(tensor)) then = [tensor, data]() mutable { tensor.copy_(data); };
  return issued(c10d::OpType::ALLREDUCE, {tensor}, {data}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_iallreduce(comm, data.data_ptr(), data.data_ptr(), static_cast<std::size_t>(data.numel()), type, request);
  }, std::move(then));
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

c10::intrusive_ptr<c10d::Work> ProcessGroupDdlscale::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                               std::vector<at::Tensor>& inputs,
                                                               const c10d::AllgatherOptions& /*options*/) {
  const at::Tensor& input = onlyTensor(inputs, "allgather");
  checkHostDense(input, "allgather");
  TORCH_CHECK(outputs.size() == 1, "ddlscale: allgather takes one list of outputs per process, got ", outputs.size());
  std::vector<at::Tensor>& list = outputs.front();
  TORCH_CHECK(static_cast<int>(list.size()) == size_, "ddlscale: allgather: ", list.size(), " outputs for ", size_, " ranks");
  for (const at::Tensor& output : list) {
    checkHostDense(output, "allgather");
    TORCH_CHECK(output.scalar_type() == input.scalar_type() && output.sizes() == input.sizes(),
                "ddlscale: allgather: every output must have the input's type and shape");
  }
  const Movement movement = movementOf(input);
  const at::Tensor send = contiguousBytes(input, movement);
  at::Tensor gathered = at::empty({static_cast<std::int64_t>(movement.unitBytes) * size_}, at::kByte);
  std::function<void()> then = [list, gathered, movement]() mutable {
    for (std::size_t r = 0; r < list.size(); ++r) list[r].copy_(viewAs(gathered, r * movement.unitBytes, list[r]));
  };
  return issued(c10d::OpType::ALLGATHER, list, {send, gathered}, [&](ddl_comm comm, ddl_request* request) {
    return ddl_iallgather(comm, send.data_ptr(), gathered.data_ptr(), movement.count(), movement.type, request);
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
