#pragma once
// Completes the backend's works as libddlscale completes their requests. libddlscale runs one
// communicator's collectives in the order they were issued and tells of each through a request that
// someone must wait on; torch's callers wait on the work's future instead, which only completes when
// someone completes it. So a thread of the process group's own waits on each request in issue order, runs
// what must follow the collective (copying an all-gather out of its staging buffer), and completes the work.

#include <ddlscale/ddlscale.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "runtime/pytorch/ddlscale_work.hpp"

namespace ddl::torch_backend {

class RequestCompleter {
 public:
  RequestCompleter();
  // Completes what is queued, then stops.
  ~RequestCompleter();
  RequestCompleter(const RequestCompleter&) = delete;
  RequestCompleter& operator=(const RequestCompleter&) = delete;

  // `then` runs after the request succeeded and before the work completes; what it throws fails the work.
  void add(ddl_request request, c10::intrusive_ptr<DdlscaleWork> work, std::function<void()> then = {});
  // Returns once every request added so far has been completed.
  void drain();

 private:
  struct Pending {
    ddl_request request;
    c10::intrusive_ptr<DdlscaleWork> work;
    std::function<void()> then;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending> pending_;
  bool busy_ = false;  // a request taken off the queue and not yet completed
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ddl::torch_backend
