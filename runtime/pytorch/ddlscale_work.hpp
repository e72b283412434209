#pragma once
// One collective issued through the torch backend: c10d's Work, waited on by torch's own callers
// (work.wait() in Python, the autograd engine), and its future, which DistributedDataParallel's reducer
// waits on and reads the bucket from. Both complete together, from the backend's completion thread.

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <ATen/core/ivalue.h>

#include <exception>
#include <memory>
#include <vector>

namespace ddl::torch_backend {

class DdlscaleWork final : public c10d::Work {
 public:
  // `outputs`: the tensors the collective writes, the future's value once it completes. `buffers`: what
  // libddlscale reads and writes until then (staging copies among them), kept alive as long.
  DdlscaleWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs, std::vector<at::Tensor> buffers = {});

  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

  // A receive from any rank: where libddlscale writes its sender, which sourceRank() reads once complete.
  int* sourceSlot() { return source_.get(); }
  int sourceRank() const override;

  // Completes the work and its future: with the outputs, or with `error`.
  void complete(std::exception_ptr error);

 private:
  std::vector<at::Tensor> outputs_;
  std::vector<at::Tensor> buffers_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::unique_ptr<int> source_ = std::make_unique<int>(-1);
};

}  // namespace ddl::torch_backend
