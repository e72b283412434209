#pragma once
// Ends an MPI job whose ranks wait for one that has stopped answering, and names that rank.
//
// Each rank runs one watchdog thread. The rank's own threads tell it what they wait in (a barrier, the MPI
// baseline's allreduce, messages of a schedule) with waitingIn(); if one wait lasts longer than the timeout,
// or a transport gives up (stopJob), the watchdog starts a roll call: it sends this rank's state to every
// other rank, and every watchdog that hears a roll call does the same. After a grace period each rank knows
// who answered and where each one is. The lowest rank that answered prints the verdict, naming the silent
// ranks (stopped, or dead without a word) or the ranks that answer but never arrived (an endless compute),
// and calls MPI_Abort, so the whole job ends within timeout + grace + the time mpirun takes to stop it.
//
// The watchdog thread calls MPI while the rank's main thread may be blocked inside MPI: the job must be
// initialised with MPI_THREAD_MULTIPLE. Without it the watchdog still ends the job at the deadline, without
// a roll call, naming only the wait that expired. Roll-call messages use their own tag on the job's
// communicator, which transports must leave free (kRollCallTag).

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ddl {

class SilenceWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  // MPI tags from here up are the watchdog's: the transports' message tags stay below it.
  static constexpr int kRollCallTag = 32767;
  // The reporter's word that the verdict is out: a rank that hears it stays quiet (a stopped rank that
  // mpirun resumes in order to kill it would otherwise call a roll of its own).
  static constexpr int kVerdictTag = 32766;
  static constexpr int kFirstReservedTag = 32000;
  // How long a roll call collects answers. A rank busy outside MPI answers within the polling period.
  static constexpr std::chrono::milliseconds kGrace{2000};
  static constexpr std::chrono::milliseconds kPollPeriod{20};

  // `threadSupport` is what MPI_Init_thread provided.
  SilenceWatchdog(MPI_Comm communicator, std::chrono::milliseconds timeout, int threadSupport);
  // Stops the thread: call it before MPI_Finalize, with no wait in progress.
  ~SilenceWatchdog();
  SilenceWatchdog(const SilenceWatchdog&) = delete;
  SilenceWatchdog& operator=(const SilenceWatchdog&) = delete;

  std::chrono::milliseconds timeout() const { return timeout_; }

  // While a Wait lives, this rank waits in `what` (a string literal or otherwise outlives the Wait); the
  // watchdog stops the job if it lasts past the timeout.
  class Wait {
   public:
    explicit Wait(SilenceWatchdog& watchdog, const char* what) : watchdog_(watchdog) { watchdog_.enter(what); }
    ~Wait() { watchdog_.leave(); }
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;

   private:
    SilenceWatchdog& watchdog_;
  };
  Wait waitingIn(const char* what) { return Wait(*this, what); }

  // Ends the job from any thread: the roll call, the verdict, MPI_Abort. `why` says what this rank saw.
  [[noreturn]] void stopJob(const std::string& why);

 private:
  // Where this rank is, as it tells the others in a roll call.
  enum class Where : std::int32_t { Waiting, GaveUp, Busy };
  void enter(const char* what);
  void leave();
  void watch();
  Where where(Clock::time_point now, std::string& description);
  [[noreturn]] void rollCall(const std::string& why);
  bool verdictIsOut();
  [[noreturn]] void waitForTheEnd();

  MPI_Comm communicator_;
  int rank_ = 0;
  int size_ = 1;
  std::chrono::milliseconds timeout_;
  bool canRollCall_;
  std::mutex mutex_;
  std::condition_variable stopWatching_;
  bool stopping_ = false;
  const char* waitingIn_ = nullptr;  // guarded by mutex_, as the two below
  Clock::time_point waitingSince_;
  std::string gaveUp_;               // why this rank stopped waiting (stopJob)
  std::atomic<bool> rollCallStarted_{false};
  std::thread thread_;
};

}  // namespace ddl
