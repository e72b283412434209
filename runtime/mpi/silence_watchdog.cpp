#include "runtime/mpi/silence_watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

namespace ddl {

namespace {

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
  if (canRollCall_) closeTheRoll();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopWatching_.notify_all();
  thread_.join();
}

void SilenceWatchdog::enter(const char* what, Patience patience) { record(what, patience); }

void SilenceWatchdog::leave() { record(nullptr, Patience::UntilTheTimeout); }

void SilenceWatchdog::record(const char* what, Patience patience) {
  const std::uint64_t sequence = sequence_.load(std::memory_order_relaxed);
  sequence_.store(sequence + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  waitingIn_.store(what, std::memory_order_relaxed);
  patience_.store(patience, std::memory_order_relaxed);
  sequence_.store(sequence + 2, std::memory_order_release);
}

SilenceWatchdog::WaitState SilenceWatchdog::current() const {
  while (true) {
    WaitState state;
    state.sequence = sequence_.load(std::memory_order_acquire);
    state.what = waitingIn_.load(std::memory_order_relaxed);
    state.patience = patience_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (state.sequence % 2 == 0 && sequence_.load(std::memory_order_relaxed) == state.sequence) return state;
    std::this_thread::yield();  // the writer is between its two stores: let it finish, should it share our core
  }
}

SilenceWatchdog::WaitState SilenceWatchdog::observe(Clock::time_point now) {
  const WaitState state = current();
  if (state.sequence != observedSequence_) {
    observedSequence_ = state.sequence;
    waitingSince_ = now;
  }
  return state;
}

SilenceWatchdog::Answer SilenceWatchdog::answer(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  const WaitState wait = observe(now);
  Answer mine;
  mine.rank = rank_;
  const double elapsed = std::chrono::duration<double>(now - waitingSince_).count();
  mine.recent = now - waitingSince_ < timeout_;
  std::string words;
  if (ended_ == Where::Finished) {
    mine.where = static_cast<std::int32_t>(Where::Finished);
    words = "finished the job";
  } else if (ended_ != Where::Busy) {
    mine.where = static_cast<std::int32_t>(ended_);
    mine.status = endStatus_;
    words = (ended_ == Where::Failed ? "failed: " : "gave up waiting: ") + endedBecause_;
  } else if (wait.what) {
    mine.where = static_cast<std::int32_t>(Where::Waiting);
    mine.patience = static_cast<std::int32_t>(wait.patience);
    std::snprintf(mine.wait, sizeof mine.wait, "%s", wait.what);
    words = "waiting in " + std::string(wait.what) + " for " + seconds(elapsed);
  } else {
    mine.where = static_cast<std::int32_t>(Where::Busy);
    words = "busy outside MPI for " + seconds(elapsed);
  }
  std::snprintf(mine.state, sizeof mine.state, "%s", words.c_str());
  return mine;
}

void SilenceWatchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    stopWatching_.wait_for(lock, kPollPeriod);
    if (stopping_) return;
    const Clock::time_point now = Clock::now();
    std::string expired;
    const WaitState wait = observe(now);
    if (wait.what && now - waitingSince_ > timeout_)
      expired = "rank " + std::to_string(rank_) + " waited in " + wait.what + " for " +
                seconds(std::chrono::duration<double>(now - waitingSince_).count()) + " (--timeout-s " +
                seconds(std::chrono::duration<double>(timeout_).count()) + ")";
    lock.unlock();
    // Only the thread that holds the roll call may take its messages: stopJob's may be under way.
    if (!rollCallStarted_.exchange(true)) {
      std::string why = heardTheRoll();
      // The main thread may have left the wait since: then there is nothing to call the roll about.
      if (why.empty() && !expired.empty() && current().sequence == wait.sequence) why = expired;
      if (!why.empty()) rollCall(why);  // returns where the job goes on
      rollCallStarted_ = false;
    }
    lock.lock();
  }
}

std::string SilenceWatchdog::heardTheRoll() {
  if (!canRollCall_) return "";
  if (!early_.empty()) return "rank " + std::to_string(early_.begin()->first) + " called the roll";
  while (true) {
    Answer answer;
    const int caller = takeAnswer(answer);
    if (caller < 0) return "";
    if (answer.round <= rounds_) continue;  // a roll call this rank has already seen to its end
    early_[caller] = answer;
    return "rank " + std::to_string(caller) + " called the roll";
  }
}

int SilenceWatchdog::takeMessage(int tag, void* into, int bytes) {
  int arrived = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, communicator_, &arrived, &status);
  if (!arrived) return -1;
  MPI_Recv(into, bytes, MPI_BYTE, status.MPI_SOURCE, tag, communicator_, MPI_STATUS_IGNORE);
  return status.MPI_SOURCE;
}

int SilenceWatchdog::takeAnswer(Answer& answer) {
  const int from = takeMessage(kRollCallTag, &answer, sizeof answer);
  if (from >= 0) answer.wait[sizeof answer.wait - 1] = answer.state[sizeof answer.state - 1] = '\0';
  return from;
}

void SilenceWatchdog::stopJob(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    if (ended_ == Where::Busy) {
      ended_ = Where::GaveUp;
      endedBecause_ = why;
    }
  }
  // A roll call already under way may still decide that the job goes on: wait for it, then call one.
  while (rollCallStarted_.exchange(true)) std::this_thread::sleep_for(kPollPeriod);
  rollCall("rank " + std::to_string(rank_) + " gave up waiting: " + why);
  waitForTheEnd();  // a rank that gave up never lets the job go on
}

void SilenceWatchdog::failJob(const std::string& why, int status) {
  {
    std::lock_guard lock(mutex_);
    ended_ = Where::Failed;
    endedBecause_ = why;
    endStatus_ = status;
  }
  while (rollCallStarted_.exchange(true)) std::this_thread::sleep_for(kPollPeriod);
  rollCall("rank " + std::to_string(rank_) + " failed: " + why);
  waitForTheEnd();
}

void SilenceWatchdog::rollCall(const std::string& why) {
  if (!canRollCall_) {
    // This thread may not call MPI while another is inside it: exit, and mpirun ends the job.
    std::fprintf(stderr, "ddlrun: %s; stopping the job (without MPI_THREAD_MULTIPLE the ranks cannot be asked "
                         "which of them is silent)\n", why.c_str());
    std::fflush(stderr);
    _exit(endStatus_);
  }
  if (verdictIsOut()) waitForTheEnd();
  Answer mine = answer(Clock::now());
  mine.round = rounds_ + 1;
  std::vector<MPI_Request> sends;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    sends.emplace_back();
    MPI_Isend(&mine, sizeof mine, MPI_BYTE, peer, kRollCallTag, communicator_, &sends.back());
  }
  // The answers to this roll call that came before it began here (one of them called it).
  std::map<int, Answer> answers;
  answers.swap(early_);
  answers[rank_] = mine;
  const Clock::time_point end = Clock::now() + kGrace;
  while (Clock::now() < end && static_cast<int>(answers.size()) < size_) {
    if (verdictIsOut()) waitForTheEnd();
    Answer answer;
    const int peer = takeAnswer(answer);
    if (peer < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    // A peer that saw this roll call to its end before this rank did may already call the next: its answer
    // to that one waits for it here. Counted as an answer to this one, it would leave this rank deaf to
    // the next roll call, and the caller would find it silent.
    if (answer.round == mine.round)
      answers[peer] = answer;
    else if (answer.round > mine.round)
      early_[peer] = answer;
  }
  // Every rank that got every answer comes to the same verdict, so that either all go on or the job ends.
  const bool reporter = answers.begin()->first == rank_;  // the lowest rank that answered
  // The verdict depends on the answers alone, which every rank that got them all holds alike.
  const Answer* library = nullptr;  // a rank in a library's collective, whose progress cannot be seen
  for (const auto& [peer, answer] : answers)
    if (answer.where == static_cast<std::int32_t>(Where::Waiting) &&
        answer.patience == static_cast<std::int32_t>(Patience::WhileEveryRankWaitsToo))
      library = &answer;
  // Slow, not stuck: every rank waits in that collective too, or has moved on lately, past it (a library's
  // ranks leave its collective at different times: those that left are in the next wait, or between two).
  // A rank that moved on and then waits too long in what follows calls a roll of its own.
  bool slowButAlive = library != nullptr && static_cast<int>(answers.size()) == size_;
  for (const auto& [peer, answer] : answers) {
    if (!slowButAlive) break;
    const bool inTheSameCollective = answer.where == static_cast<std::int32_t>(Where::Waiting) &&
                                     answer.patience == library->patience && std::strcmp(answer.wait, library->wait) == 0;
    const bool movedOnLately = ((answer.where == static_cast<std::int32_t>(Where::Waiting) ||
                                 answer.where == static_cast<std::int32_t>(Where::Busy)) && answer.recent) ||
                               answer.where == static_cast<std::int32_t>(Where::Finished);
    slowButAlive = inTheSameCollective || movedOnLately;
  }
  if (slowButAlive) {
    ++rounds_;
    if (reporter)
      std::fprintf(stderr, "ddlrun: every rank waits in %s, or has moved on past it, and answers: it is slow, not "
                           "stuck; waiting on\n", library->wait);
    // `mine` must outlive its sends; every peer answered, so each is receiving them now.
    MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    std::lock_guard lock(mutex_);
    // The next look at the collective after another timeout; any other wait keeps its own deadline.
    const Clock::time_point now = Clock::now();
    const WaitState wait = observe(now);
    if (wait.what && wait.patience == Patience::WhileEveryRankWaitsToo && std::strcmp(wait.what, library->wait) == 0)
      waitingSince_ = now;
    return;
  }
  // The job ends: this frame never returns, so `mine` outlives the sends.

  std::vector<int> failed, silent, busy;
  int status = 3;
  for (int peer = 0; peer < size_; ++peer) {
    auto it = answers.find(peer);
    if (it == answers.end()) {
      silent.push_back(peer);
    } else if (it->second.where == static_cast<std::int32_t>(Where::Failed)) {
      if (failed.empty()) status = it->second.status;
      failed.push_back(peer);
    } else if (it->second.where == static_cast<std::int32_t>(Where::Busy)) {
      busy.push_back(peer);
    }
  }
  if (reporter) {
    std::string verdict;
    if (!failed.empty())
      verdict = rankList(failed) + " failed (below, what each said)";
    else if (!silent.empty())
      verdict = rankList(silent) + (silent.size() == 1 ? " does" : " do") +
                " not answer (stopped, hung in the kernel, or dead without a word)";
    else if (!busy.empty())
      verdict = rankList(busy) + " answered but never reached the wait of the others";
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
      MPI_Request request;
      MPI_Isend(&kVerdictByte, 1, MPI_BYTE, peer, kVerdictTag, communicator_, &request);
      MPI_Request_free(&request);
    }
    MPI_Abort(communicator_, status);
  }
  {
    std::lock_guard lock(mutex_);
    endStatus_ = status;
  }
  waitForTheEnd();
}

void SilenceWatchdog::closeTheRoll() {
  {
    std::lock_guard lock(mutex_);
    if (ended_ == Where::Busy) ended_ = Where::Finished;
  }
  // Take the roll call from the thread: a roll call of this rank's under way ends first, and none begins
  // after. So this rank's word that it is done goes out after every roll call it called.
  while (rollCallStarted_.exchange(true)) std::this_thread::sleep_for(kPollPeriod);
  static const char kDone = 1;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    MPI_Request request;
    MPI_Isend(&kDone, 1, MPI_BYTE, peer, kFinishedTag, communicator_, &request);
    MPI_Request_free(&request);
  }
  // Another rank's roll call may have begun before its word: it needs this rank's answer, so this rank
  // answers until every other rank has said it is done (having seen its own roll calls to their end).
  std::vector<bool> done(static_cast<std::size_t>(size_), false);
  int waitingFor = size_ - 1;
  const Clock::time_point end = Clock::now() + kClosingPatience;
  while (waitingFor > 0 && Clock::now() < end) {
    if (const std::string why = heardTheRoll(); !why.empty()) rollCall(why);  // returns where the job goes on
    char word = 0;
    const int peer = takeMessage(kFinishedTag, &word, 1);
    if (peer < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (!done[static_cast<std::size_t>(peer)]) {
      done[static_cast<std::size_t>(peer)] = true;
      --waitingFor;
    }
  }
}

bool SilenceWatchdog::verdictIsOut() {
  int out = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, kVerdictTag, communicator_, &out, MPI_STATUS_IGNORE);
  return out != 0;
}

void SilenceWatchdog::waitForTheEnd() {
  // Another rank reports and aborts; should it have died meanwhile, end the job from here.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  int status = 3;
  {
    std::lock_guard lock(mutex_);
    status = endStatus_;
  }
  MPI_Abort(communicator_, status);
  _exit(status);
}

}  // namespace ddl
