#include "runtime/pytorch/ddlscale_work.hpp"

#include <utility>

namespace ddl::torch_backend {

DdlscaleWork::DdlscaleWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs, std::vector<at::Tensor> buffers)
    : Work(rank, type),
      outputs_(std::move(outputs)),
      buffers_(std::move(buffers)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

int DdlscaleWork::sourceRank() const {
  // libddlscale writes the sender before the work completes; before that, it reads as none.
  TORCH_CHECK(*source_ >= 0, "ddlscale: sourceRank() of a work that is not a completed receive from any rank (wait() first)");
  return *source_;
}

void DdlscaleWork::complete(std::exception_ptr error) {
  // Work first, so that whoever the future wakes finds the work complete too.
  buffers_.clear();
  finish(error);
  if (error)
    future_->setError(error);
  else
    future_->markCompleted(c10::IValue(outputs_));
}

}  // namespace ddl::torch_backend
