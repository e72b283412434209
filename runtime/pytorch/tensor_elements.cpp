#include "runtime/pytorch/tensor_elements.hpp"

#include <cstring>

namespace ddl::torch_backend {
namespace {

std::string reduceOpName(const c10d::ReduceOp& op) {
  if (op == c10d::ReduceOp::SUM) return "SUM";
  if (op == c10d::ReduceOp::AVG) return "AVG";
  if (op == c10d::ReduceOp::PRODUCT) return "PRODUCT";
  if (op == c10d::ReduceOp::MIN) return "MIN";
  if (op == c10d::ReduceOp::MAX) return "MAX";
  if (op == c10d::ReduceOp::BAND) return "BAND";
  if (op == c10d::ReduceOp::BOR) return "BOR";
  if (op == c10d::ReduceOp::BXOR) return "BXOR";
  return "PREMUL_SUM";
}

ddl_op opOf(const c10d::ReduceOp& op, const char* collective) {
  if (op == c10d::ReduceOp::SUM) return DDL_SUM;
  if (op == c10d::ReduceOp::AVG) return DDL_AVG;
  if (op == c10d::ReduceOp::PRODUCT) return DDL_PROD;
  if (op == c10d::ReduceOp::MIN) return DDL_MIN;
  if (op == c10d::ReduceOp::MAX) return DDL_MAX;
  TORCH_CHECK(false, "ddlscale: ", collective, " with ReduceOp.", reduceOpName(op),
              ": ddlscale reduces with SUM, AVG, PRODUCT, MIN and MAX");
}

}  // namespace

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

std::string pythonName(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "torch.float32";
    case at::kDouble: return "torch.float64";
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
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

Reducible reducibleAs(const at::Tensor& tensor, const c10d::ReduceOp& reduceOp, const char* collective) {
  Reducible how;
  how.op = opOf(reduceOp, collective);
  switch (tensor.scalar_type()) {
    case at::kFloat: how.type = DDL_FLOAT32; return how;
    case at::kDouble: how.type = DDL_FLOAT64; return how;
    case at::kHalf: how.type = DDL_FLOAT16; return how;
    case at::kBFloat16: how.type = DDL_BFLOAT16; return how;
    case at::kChar: how.type = DDL_INT8; return how;
    case at::kByte: how.type = DDL_UINT8; return how;
    case at::kInt: how.type = DDL_INT32; return how;
    case at::kLong: how.type = DDL_INT64; return how;
    case at::kBool:
      TORCH_CHECK(how.op != DDL_AVG, "ddlscale: ", collective, " of torch.bool tensors with ReduceOp.AVG: a mean of bools is no bool");
      how.type = DDL_UINT8;
      if (how.op == DDL_SUM) how.op = DDL_MAX;
      if (how.op == DDL_PROD) how.op = DDL_MIN;
      return how;
    case at::kComplexFloat:
    case at::kComplexDouble:
      TORCH_CHECK(how.op == DDL_SUM || how.op == DDL_AVG, "ddlscale: ", collective, " of ", pythonName(tensor.scalar_type()),
                  " tensors with ReduceOp.", reduceOpName(reduceOp), ": complex numbers are reduced with SUM and AVG only");
      how.type = tensor.scalar_type() == at::kComplexFloat ? DDL_FLOAT32 : DDL_FLOAT64;
      how.perElement = 2;
      return how;
    default:
      TORCH_CHECK(false, "ddlscale: ", collective, " of ", pythonName(tensor.scalar_type()),
                  " tensors: ddlscale reduces torch.float32, float64, float16, bfloat16, int8, uint8, int32, int64, bool, "
                  "complex64 and complex128");
  }
}

std::size_t reducedCount(const at::Tensor& tensor, const Reducible& how) {
  return static_cast<std::size_t>(tensor.numel() * how.perElement);
}

void checkListLike(const std::vector<at::Tensor>& list, const at::Tensor& like, int ranks, const char* collective,
                   const char* what) {
  TORCH_CHECK(static_cast<int>(list.size()) == ranks, "ddlscale: ", collective, ": ", list.size(), " ", what, " for ", ranks,
              " ranks");
  for (const at::Tensor& each : list) {
    checkHostDense(each, collective);
    TORCH_CHECK(each.scalar_type() == like.scalar_type() && each.sizes() == like.sizes(), "ddlscale: ", collective,
                ": every one of the ", what, " must have the type and shape of ", pythonName(like.scalar_type()), " ",
                like.sizes());
  }
}

void checkRoot(std::int64_t root, std::int64_t rootTensor, int ranks, const char* collective) {
  TORCH_CHECK(rootTensor == 0, "ddlscale: ", collective, ": rootTensor must be 0 with one tensor per process");
  TORCH_CHECK(root >= 0 && root < ranks, "ddlscale: ", collective, ": root rank ", root, " is not one of the group's ", ranks,
              " ranks");
}

Movement movementOf(const at::Tensor& tensor) {
  Movement movement;
  movement.bytes = static_cast<std::size_t>(tensor.numel()) * tensor.element_size();
  movement.unitBytes = movement.bytes + movement.bytes % 2;
  movement.type = movement.unitBytes % 8 == 0 ? DDL_FLOAT64 : movement.unitBytes % 4 == 0 ? DDL_FLOAT32 : DDL_FLOAT16;
  return movement;
}

at::Tensor contiguousBytes(const at::Tensor& tensor, const Movement& movement) {
  if (tensor.is_contiguous() && !movement.padded()) return tensor;
  at::Tensor staged = at::zeros({static_cast<std::int64_t>(movement.unitBytes)}, at::kByte);
  const at::Tensor contiguous = tensor.contiguous();
  if (movement.bytes > 0) std::memcpy(staged.data_ptr(), contiguous.data_ptr(), movement.bytes);
  return staged;
}

at::Tensor viewAs(const at::Tensor& staged, std::size_t offset, const at::Tensor& like) {
  const auto bytes = static_cast<std::int64_t>(like.numel()) * like.element_size();
  return staged.view(at::kByte).narrow(0, static_cast<std::int64_t>(offset), bytes).view(like.scalar_type()).view(like.sizes());
}

}  // namespace ddl::torch_backend
