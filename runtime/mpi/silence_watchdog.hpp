#pragma once
// Ends an MPI job whose ranks wait for one that has stopped answering, and names that rank.
//
// Each rank runs one watchdog thread. The rank's own threads tell it what they wait in (a barrier, the MPI
// baseline's allreduce, messages of a schedule) with waitingIn(); if one wait lasts longer than the timeout,
// or the rank gives up (stopJob) or fails (failJob), the watchdog starts a roll call: it sends this rank's
// state to every other rank, and every watchdog that hears a roll call does the same. After a grace period
// each rank knows who answered and where each one is, and all come to the same verdict:
//
//   - every rank answered and waits in the same library collective, whose progress cannot be seen (a 1 GiB
//     MPI_Allreduce on a slow network), or has moved on past it lately (its ranks leave it at different
//     times): it is slow, not stuck, and the job goes on;
//   - otherwise the job stops. The lowest rank that answered prints the verdict, naming the ranks that
//     failed (with their reason), else the silent ones (stopped, or dead without a word), else the ones
//     that answer but never arrived (an endless compute), and calls MPI_Abort, so the whole job ends
//     within timeout + grace + the time mpirun takes to stop it.
//
// A watchdog that stops (its rank is done) keeps answering until every other rank's has said it is done too:
// a roll call one rank calls just as the others leave would otherwise find them silent and end a job that
// had finished (seen in CI, tests/runtime/slow_collective_rounds.cpp, 2026-12-07: the last roll call of one rank
// found the two others gone).
//
// The watchdog thread calls MPI while the rank's main thread may be blocked inside MPI: the job must be
// initialised with MPI_THREAD_MULTIPLE. Without it the watchdog still ends the job at the deadline, without
// a roll call, naming only the wait that expired. Roll-call messages use tags of their own on the job's
// communicator, which transports must leave free (kFirstReservedTag and above).

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/call_agreement.hpp"

namespace ddl {

class SilenceWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  // MPI tags from here up are the watchdog's: the transports' message tags stay below it.
  static constexpr int kFirstReservedTag = 32000;
  static constexpr int kRollCallTag = 32767;
  static_assert(kAgreementChannel < kFirstReservedTag, "agreements go on a transport's channel, below the watchdog's tags");
  // The reporter's word that the verdict is out: a rank that hears it stays quiet (a stopped rank that
  // mpirun resumes in order to kill it would otherwise call a roll of its own).
  static constexpr int kVerdictTag = 32766;
  // A rank's word, as its watchdog stops, that it is done with the job (closeTheRoll).
  static constexpr int kFinishedTag = 32765;
  // How long a roll call collects answers. A rank busy outside MPI answers within the polling period.
  static constexpr std::chrono::milliseconds kGrace{2000};
  static constexpr std::chrono::milliseconds kPollPeriod{20};
  // How long a stopping watchdog waits for every other rank's word that it is done: a roll call under way
  // (at most kGrace) and the ranks' arrival after the job's last barrier, twice over.
  static constexpr std::chrono::milliseconds kClosingPatience{2 * kGrace};

  // How a wait is judged when it passes the timeout.
  enum class Patience : std::int32_t {
    // Progress would show (a message arriving, a barrier all reach at once): past the timeout it is stuck.
    UntilTheTimeout,
    // A library's collective, whose progress cannot be seen: it goes on while every rank answers and waits
    // in it too.
    WhileEveryRankWaitsToo,
  };

  // `threadSupport` is what MPI_Init_thread provided.
  SilenceWatchdog(MPI_Comm communicator, std::chrono::milliseconds timeout, int threadSupport);
  // Stops the thread: call it before MPI_Finalize, with no wait in progress, on every rank (after a barrier
  // the watchdog watched, as ddlrun does). It answers roll calls until every other rank says it is done too
  // (closeTheRoll), since one rank's roll call may begin just as the others leave.
  ~SilenceWatchdog();
  SilenceWatchdog(const SilenceWatchdog&) = delete;
  SilenceWatchdog& operator=(const SilenceWatchdog&) = delete;

  std::chrono::milliseconds timeout() const { return timeout_; }

  // While a Wait lives, this rank waits in `what` (a string literal, or one that outlives the Wait).
  class Wait {
   public:
    Wait(SilenceWatchdog& watchdog, const char* what, Patience patience = Patience::UntilTheTimeout)
        : watchdog_(watchdog) {
      watchdog_.enter(what, patience);
    }
    ~Wait() { watchdog_.leave(); }
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;

   private:
    SilenceWatchdog& watchdog_;
  };
  Wait waitingIn(const char* what, Patience patience = Patience::UntilTheTimeout) { return Wait(*this, what, patience); }

  // Ends the job from any thread of this rank, which gave up waiting for the others (a transport's
  // deadline passed): the roll call, the verdict, MPI_Abort.
  [[noreturn]] void stopJob(const std::string& why);
  // Ends the job from any thread of this rank, which failed on its own (`why`): the others are asked too,
  // and the job ends with `status` (2 for bad input only this rank found, 3 for an internal error).
  [[noreturn]] void failJob(const std::string& why, int status);

 private:
  // Where this rank is, as it tells the others in a roll call.
  enum class Where : std::int32_t { Waiting, GaveUp, Failed, Busy, Finished };
  // What one rank says in a roll call: who it is, where it is, and the wait it is in.
  struct Answer {
    std::int32_t rank = 0;
    std::int32_t where = 0;     // Where
    std::int32_t patience = 0;  // Patience, while waiting
    std::int32_t status = 3;    // the exit status it asks for, if it failed
    std::int32_t recent = 0;    // 1 where it entered its wait, or left its last, less than the timeout ago
    std::int32_t round = 0;     // which roll call this answers: 1 for the job's first, and so on
    char wait[64] = {};         // the name of the wait, while waiting
    char state[224] = {};       // all of it, in words
  };

  // What the rank's waiting thread last said it waits in: `what` is null between waits. `sequence` counts
  // the waits entered and left (twice each: odd while one is being recorded).
  struct WaitState {
    std::uint64_t sequence = 0;
    const char* what = nullptr;
    Patience patience = Patience::UntilTheTimeout;
  };

  void enter(const char* what, Patience patience);
  void leave();
  void record(const char* what, Patience patience);
  // A consistent read of the state record() writes, from any thread.
  WaitState current() const;
  // current(), and since when it holds: the first time a caller saw its sequence (guarded by mutex_).
  WaitState observe(Clock::time_point now);
  void watch();
  // Why this rank should join a roll call another called, or "" where none is called: takes the roll-call
  // messages that came, dropping those of roll calls already over.
  std::string heardTheRoll();
  Answer answer(Clock::time_point now);
  // Returns only where the job goes on (a slow library collective); otherwise the job ends.
  void rollCall(const std::string& why);
  bool verdictIsOut();
  // The next message of `tag` from any rank, received into `into` (`bytes` long): its sender, or -1 where
  // none has come.
  int takeMessage(int tag, void* into, int bytes);
  // The next roll-call message, its strings ended whatever the sender wrote: its sender, or -1.
  int takeAnswer(Answer& answer);
  // The stopping rank's part: it answers "finished" from now on, waits out any roll call of its own, tells
  // every other rank it is done, and answers the roll calls that still come until every other rank has
  // said the same (or kClosingPatience passes).
  void closeTheRoll();
  [[noreturn]] void waitForTheEnd();

  MPI_Comm communicator_;
  int rank_ = 0;
  int size_ = 1;
  std::chrono::milliseconds timeout_;
  bool canRollCall_;
  std::mutex mutex_;
  std::condition_variable stopWatching_;
  bool stopping_ = false;
  // A sequence lock, written only by the thread that waits: entering and leaving a wait takes no lock and
  // reads no clock, since a schedule enters one every time it waits for its messages (with the mutex and
  // two clock reads it cost, a 16 KiB allreduce of 2 ranks took about 7% longer). The watch thread stamps
  // each new sequence with the time it first sees it, late by at most kPollPeriod: nothing beside a
  // timeout of a second or more.
  std::atomic<std::uint64_t> sequence_{0};
  std::atomic<const char*> waitingIn_{nullptr};
  std::atomic<Patience> patience_{Patience::UntilTheTimeout};
  // Guarded by mutex_:
  std::uint64_t observedSequence_ = 0;
  Clock::time_point waitingSince_;  // when observedSequence_ was first seen
  Where ended_ = Where::Busy;  // GaveUp or Failed once stopJob or failJob is called, Finished as it stops
  std::string endedBecause_;
  int endStatus_ = 3;
  // Held by the thread that calls, or answers, a roll call; it alone touches the two below and the
  // roll-call messages.
  std::atomic<bool> rollCallStarted_{false};
  // Roll calls seen to their end (each one, on every rank, with the job going on), so that a roll call's
  // messages are told from the next one's: roll calls are numbered from 1.
  std::int32_t rounds_ = 0;
  std::map<int, Answer> early_;  // answers to the next roll call, received before this rank joined it
  std::thread thread_;
};

}  // namespace ddl
