#include "runtime/mpi/silence_watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

namespace ddl {
namespace {

// What one rank says in a roll call: who it is and where it is.
struct RollCallAnswer {
  std::int32_t rank = 0;
  std::int32_t where = 0;  // SilenceWatchdog::Where
  char state[248] = {};
};

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", value);
  return text;
}

std::string rankList(const std::vector<int>& ranks) {
  std::string list;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    list += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return (ranks.size() == 1 ? "rank " : "ranks ") + list;
}

}  // namespace

SilenceWatchdog::SilenceWatchdog(MPI_Comm communicator, std::chrono::milliseconds timeout, int threadSupport)
    : communicator_(communicator), timeout_(timeout), canRollCall_(threadSupport >= MPI_THREAD_MULTIPLE),
      waitingSince_(Clock::now()) {
  MPI_Comm_rank(communicator_, &rank_);
  MPI_Comm_size(communicator_, &size_);
  thread_ = std::thread([this] { watch(); });
}

SilenceWatchdog::~SilenceWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopWatching_.notify_all();
  thread_.join();
}

void SilenceWatchdog::enter(const char* what) {
  std::lock_guard lock(mutex_);
  waitingIn_ = what;
  waitingSince_ = Clock::now();
}

void SilenceWatchdog::leave() {
  std::lock_guard lock(mutex_);
  waitingIn_ = nullptr;
  waitingSince_ = Clock::now();
}

SilenceWatchdog::Where SilenceWatchdog::where(Clock::time_point now, std::string& description) {
  std::lock_guard lock(mutex_);
  const double elapsed = std::chrono::duration<double>(now - waitingSince_).count();
  if (!gaveUp_.empty()) {
    description = "gave up waiting: " + gaveUp_;
    return Where::GaveUp;
  }
  if (waitingIn_) {
    description = "waiting in " + std::string(waitingIn_) + " for " + seconds(elapsed);
    return Where::Waiting;
  }
  description = "busy outside MPI for " + seconds(elapsed);
  return Where::Busy;
}

void SilenceWatchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    stopWatching_.wait_for(lock, kPollPeriod);
    if (stopping_) return;
    const Clock::time_point now = Clock::now();
    std::string expired;
    if (waitingIn_ && now - waitingSince_ > timeout_)
      expired = "rank " + std::to_string(rank_) + " waited in " + waitingIn_ + " for " +
                seconds(std::chrono::duration<double>(now - waitingSince_).count()) + " (--timeout-s " +
                seconds(std::chrono::duration<double>(timeout_).count()) + ")";
    lock.unlock();
    int called = 0;
    MPI_Status status;
    if (canRollCall_) MPI_Iprobe(MPI_ANY_SOURCE, kRollCallTag, communicator_, &called, &status);
    if (called) rollCall("rank " + std::to_string(status.MPI_SOURCE) + " called the roll");
    if (!expired.empty()) rollCall(expired);
    lock.lock();
  }
}

void SilenceWatchdog::stopJob(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    gaveUp_ = why;
  }
  rollCall("rank " + std::to_string(rank_) + " gave up waiting: " + why);
}

void SilenceWatchdog::rollCall(const std::string& why) {
  if (rollCallStarted_.exchange(true)) {
    // Another thread of this rank runs the roll call, and MPI_Abort will end this one.
    while (true) pause();
  }
  if (!canRollCall_) {
    // This thread may not call MPI while another is inside it: exit, and mpirun ends the job.
    std::fprintf(stderr, "ddlrun: %s; stopping the job (without MPI_THREAD_MULTIPLE the ranks cannot be asked "
                         "which of them is silent)\n", why.c_str());
    std::fflush(stderr);
    _exit(3);
  }
  if (verdictIsOut()) waitForTheEnd();
  RollCallAnswer mine;
  mine.rank = rank_;
  std::string description;
  mine.where = static_cast<std::int32_t>(where(Clock::now(), description));
  std::snprintf(mine.state, sizeof mine.state, "%s", description.c_str());
  std::vector<MPI_Request> sends;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    sends.emplace_back();
    MPI_Isend(&mine, sizeof mine, MPI_BYTE, peer, kRollCallTag, communicator_, &sends.back());
  }
  std::map<int, RollCallAnswer> answers{{rank_, mine}};
  const Clock::time_point end = Clock::now() + kGrace;
  while (Clock::now() < end && static_cast<int>(answers.size()) < size_) {
    if (verdictIsOut()) waitForTheEnd();
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kRollCallTag, communicator_, &arrived, &status);
    if (!arrived) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    RollCallAnswer answer;
    MPI_Recv(&answer, sizeof answer, MPI_BYTE, status.MPI_SOURCE, kRollCallTag, communicator_, MPI_STATUS_IGNORE);
    answer.state[sizeof answer.state - 1] = '\0';
    answers[status.MPI_SOURCE] = answer;
  }

  if (answers.begin()->first == rank_) {
    // This rank reports: the lowest that answered.
    std::vector<int> silent, notWaiting;
    for (int peer = 0; peer < size_; ++peer) {
      auto it = answers.find(peer);
      if (it == answers.end()) silent.push_back(peer);
      else if (it->second.where == static_cast<std::int32_t>(Where::Busy)) notWaiting.push_back(peer);
    }
    std::string verdict;
    if (!silent.empty())
      verdict = rankList(silent) + (silent.size() == 1 ? " does" : " do") +
                " not answer (stopped, hung in the kernel, or dead without a word)";
    else if (!notWaiting.empty())
      verdict = rankList(notWaiting) + " answered but never reached the wait of the others";
    else
      verdict = "every rank waits for another: no rank is silent, the ranks are deadlocked or the network is down";
    std::string report = "ddlrun: the job stops: " + verdict + ".\nddlrun: " + why + ".\n";
    int listed = 0;
    for (const auto& [peer, answer] : answers) {
      if (++listed > 16) {
        report += "ddlrun:   (" + std::to_string(answers.size() - 16) + " more ranks answered)\n";
        break;
      }
      report += "ddlrun:   rank " + std::to_string(peer) + ": " + answer.state + "\n";
    }
    std::fputs(report.c_str(), stderr);
    std::fflush(stderr);
    static const char kVerdictByte = 1;
    for (int peer = 0; peer < size_; ++peer) {
      if (peer == rank_) continue;
      sends.emplace_back();
      MPI_Isend(&kVerdictByte, 1, MPI_BYTE, peer, kVerdictTag, communicator_, &sends.back());
    }
    MPI_Abort(communicator_, 3);
  }
  waitForTheEnd();
}

bool SilenceWatchdog::verdictIsOut() {
  int out = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, kVerdictTag, communicator_, &out, MPI_STATUS_IGNORE);
  return out != 0;
}

void SilenceWatchdog::waitForTheEnd() {
  // Another rank reports and aborts; should it have died meanwhile, end the job from here.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  MPI_Abort(communicator_, 3);
  _exit(3);
}

}  // namespace ddl
