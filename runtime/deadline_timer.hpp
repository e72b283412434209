#pragma once
// A last resort for calls that cannot be watched from inside MPI: MPI_Init, which waits for every rank of
// the job to start, and MPI_Finalize, which waits for every rank to finish. If the call has not returned
// when the timer expires, it prints `message` and ends the process with status 3; mpirun then stops the
// rest of the job. The timer is disarmed when it is destroyed.

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace ddl {

class DeadlineTimer {
 public:
  DeadlineTimer(std::chrono::milliseconds timeout, std::string message)
      : message_(std::move(message)), thread_([this, timeout] { run(timeout); }) {}
  ~DeadlineTimer() {
    {
      std::lock_guard lock(mutex_);
      disarmed_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

 private:
  void run(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, timeout, [this] { return disarmed_; })) return;
    std::fprintf(stderr, "ddlrun: %s\n", message_.c_str());
    std::fflush(stderr);
    _exit(3);
  }

  std::string message_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool disarmed_ = false;
  std::thread thread_;  // last: it starts once the members it reads exist
};

}  // namespace ddl
