#pragma once
// How a torch tensor becomes what libddlscale moves and reduces: its element type and count, the op, and
// its bytes where only data moves; and the checks every call makes of the tensors c10d hands it. Each check
// fails as torch's error (a RuntimeError in Python) naming the collective.

#include <ddlscale/ddlscale.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ddl::torch_backend {

// The one tensor of a call on host memory, as c10d passes a list for the multi-device calls of old.
const at::Tensor& onlyTensor(const std::vector<at::Tensor>& tensors, const char* collective);
void checkHostDense(const at::Tensor& tensor, const char* collective);
// Every tensor of `list` has `like`'s type and shape, and there is one per rank.
void checkListLike(const std::vector<at::Tensor>& list, const at::Tensor& like, int ranks, const char* collective,
                   const char* what);
// The root of a call with one: one of the group's ranks, its tensor the only one.
void checkRoot(std::int64_t root, std::int64_t rootTensor, int ranks, const char* collective);

// The type as Python names it (torch.int64), where c10 says "Long".
std::string pythonName(at::ScalarType type);

// How ddlscale reduces a tensor: the element type its data travels as, how many of those per tensor element,
// and the op. A bool travels as uint8 (0 or 1), whose SUM is a logical or (MAX) and PRODUCT a logical and
// (MIN), as NCCL's process group maps them (gloo in 1.13 reduces no bools); a complex tensor as its real and
// imaginary parts, which SUM and AVG treat alike.
struct Reducible {
  ddl_datatype type = DDL_FLOAT32;
  std::int64_t perElement = 1;
  ddl_op op = DDL_SUM;
};

Reducible reducibleAs(const at::Tensor& tensor, const c10d::ReduceOp& reduceOp, const char* collective);
// The count of `how.type` elements `tensor` is.
std::size_t reducedCount(const at::Tensor& tensor, const Reducible& how);

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

Movement movementOf(const at::Tensor& tensor);
// `tensor`'s bytes in a contiguous buffer of `unitBytes` (itself where it is contiguous and needs no padding).
at::Tensor contiguousBytes(const at::Tensor& tensor, const Movement& movement);
// The tensor shaped like `like` at byte `offset` of a staging buffer.
at::Tensor viewAs(const at::Tensor& staged, std::size_t offset, const at::Tensor& like);

}  // namespace ddl::torch_backend
