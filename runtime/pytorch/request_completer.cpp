#include "runtime/pytorch/request_completer.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace ddl::torch_backend {

RequestCompleter::RequestCompleter() : thread_([this] { run(); }) {}

RequestCompleter::~RequestCompleter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void RequestCompleter::add(ddl_request request, c10::intrusive_ptr<DdlscaleWork> work, std::function<void()> then) {
  {
    std::lock_guard lock(mutex_);
    pending_.push_back({request, std::move(work), std::move(then)});
  }
  changed_.notify_all();
}

void RequestCompleter::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return pending_.empty() && !busy_; });
}

void RequestCompleter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stopping, with nothing left
    Pending next = std::move(pending_.front());
    pending_.pop_front();
    busy_ = true;
    lock.unlock();

    std::exception_ptr error;
    if (ddl_wait(next.request) != DDL_SUCCESS) {
      error = std::make_exception_ptr(std::runtime_error(ddl_last_error()));
    } else if (next.then) {
      try {
        next.then();
      } catch (...) {
        error = std::current_exception();
      }
    }
    next.work->complete(error);

    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace ddl::torch_backend
