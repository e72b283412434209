#include "runtime/in_process/rank_threads.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "common/invalid_argument.hpp"

namespace ddl {

void endProcessForRank(Rank rank, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "ddlrun: rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

int runRankThreads(int ranks, const std::function<int(Rank rank, ThreadGroup& group)>& rank) {
  ThreadGroup group(ranks);
  std::vector<int> statuses(static_cast<std::size_t>(ranks), 0);
  std::mutex failureMutex;
  std::exception_ptr invalidArgument;
  std::vector<std::thread> threads;
  for (Rank r = 0; r < ranks; ++r) {
    const auto body = [&, r] {
      try {
        statuses[static_cast<std::size_t>(r)] = rank(r, group);
      } catch (const InvalidArgument&) {
        std::lock_guard lock(failureMutex);
        if (!invalidArgument) invalidArgument = std::current_exception();
      } catch (const std::exception& error) {
        endProcessForRank(r, error.what());
      }
    };
    try {
      threads.emplace_back(body);
    } catch (const std::system_error& error) {
      // The ranks already started wait for this one: end the job, as a failing rank does.
      std::fprintf(stderr, "ddlrun: cannot start the thread of rank %d: %s\n", r, error.what());
      std::fflush(stderr);
      std::_Exit(3);
    }
  }
  for (std::thread& thread : threads) thread.join();
  if (invalidArgument) std::rethrow_exception(invalidArgument);
  int status = 0;
  for (int s : statuses) status = std::max(status, s);
  return status;
}

}  // namespace ddl
