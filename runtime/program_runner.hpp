#pragma once
// Runs one rank's program of a schedule on real memory through a Transport, under the rules of
// ProgramExecution: every step the schedule allows is in flight at once. Large steps are split into
// pieces of at most `pieceBytes`, posted together, so a receive-reduce adds each piece as it lands
// (once its dependencies are done) while later pieces are still on the wire. A step a few times the
// transport's eager limit is cut into as few even eager messages as hold it, which need no handshake.

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "algorithms/execution/out_of_place.hpp"
#include "algorithms/schedule/program.hpp"
#include "runtime/transport.hpp"

namespace ddl {

struct RunOptions {
  std::size_t pieceBytes = 1 << 20;
  // A wait longer than this with nothing finishing means a peer is gone: the job ends (abortJob).
  std::chrono::milliseconds timeout{30'000};
  // Whether runs note when they post first and complete last (lastRun()): two clock reads per run, which
  // ddlrun train reads for its overhead per allreduce and a 4 KiB allreduce of 2 ranks spends 3% of its
  // time on (analysis/results/2026-12-04-runtime-waits).
  bool timeRuns = false;
};

class ProgramRunner {
 public:
  ProgramRunner(Transport& transport, RunOptions options);
  ~ProgramRunner();
  ProgramRunner(const ProgramRunner&) = delete;
  ProgramRunner& operator=(const ProgramRunner&) = delete;

  // Runs `program` over `buffer`, which holds the collective's whole buffer of `type` elements, in place,
  // its reductions combining with `op` (a sum unless said otherwise).
  // If a peer stops answering, or anything else fails on the way (the transport, an allocation), ends the
  // job through the transport's abortJob, with the messages still posted and their memory alive; or, where
  // the transport can be abandoned, gives it up and throws TransportAbandoned (Transport::fail).
  void run(const Program& program, void* buffer, DataType type, ReduceOp op = ReduceOp::Sum) {
    run(program, buffer, buffer, type, op);
  }
  // The same out of place, as nccl-tests' sendbuff and recvbuff: reads the collective's values from
  // `input`, which it leaves as it was, and leaves the result in `output`, each a whole buffer. Sends and
  // reductions read the input until the program has written a range to the output, so nothing is copied
  // but what no step writes (OutOfPlacePlan::copiedFirst). The buffers are the same (in place) or apart.
  void run(const Program& program, const void* input, void* output, DataType type, ReduceOp op = ReduceOp::Sum);

  // When the last run posted its first transfer and when its last transfer or reduction completed (both
  // when it began, for a program with nothing to do): the time outside them is what the runtime adds to
  // an allreduce, its per-allreduce overhead. Kept only under RunOptions::timeRuns.
  struct Times {
    std::chrono::steady_clock::time_point firstPost, lastCompletion;
  };
  const Times& lastRun() const { return lastRun_; }

  // A block of receive staging as a step holds it (program_runner.cpp).
  struct Staging {
    char* block = nullptr;
    std::size_t capacity = 0;
  };

 private:
  // A program run before, with its execution and the runner's state per step, kept for its next run:
  // building them costs more than a small allreduce's messages (program_runner.cpp).
  struct Prepared;
  Prepared& prepare(const Program& program);
  // The elements of each of `step`'s pieces but the last: `pieceElements`, or fewer where the step is a
  // few of the transport's eager messages (of `eager` bytes, its eagerBytes for the step's peer) long.
  static Elements piecesFor(const Step& step, Elements pieceElements, std::size_t elementBytes, std::size_t eager);
  // Tells the transport that `prepared`'s posts will not be made again.
  void forgetPosts(Prepared& prepared);
  void runSteps(const Program& program, const void* input, void* output, DataType type, ReduceOp op);
  // Receive-reduce staging in the transport's memory, kept between runs: allocating it per step costs
  // more than the reduction.
  Staging staging(std::size_t bytes, const char* preferred);
  void releaseStaging(Staging staging);
  // Before the first post of a prepared program's first run (and of the first run with a larger element
  // type): a block of staging for each of its receive-reduce steps. Allocating GPU memory mid-run may wait
  // for the device, and so for an NCCL kernel that waits for a peer which waits for this rank.
  void reserveStaging(Prepared& prepared, std::size_t elementBytes);

  enum class Work : std::uint8_t { Transfer, Reduce };
  struct Posted {
    StepIndex step;
    int piece;
    Work work;
  };
  // Records what the run posted as `id`; a transport numbers its posts consecutively.
  void remember(RequestId id, Posted posted);
  const Posted& posted(RequestId id) const;

  Transport& transport_;
  RunOptions options_;
  Times lastRun_;
  std::vector<std::unique_ptr<Prepared>> prepared_;  // the most recently run last
  // What the current run posted, by id - firstPost_: an array, not a map, whose node per message a 4 KiB
  // allreduce paid for (analysis/results/2026-12-03-runtime-small-messages).
  std::vector<Posted> posted_;
  RequestId firstPost_ = 0;
  // Every staging block allocated, and those no step holds now: vectors, not maps, whose node per
  // receive-reduce a 4 KiB allreduce paid for.
  std::vector<char*> stagingBlocks_;
  std::vector<Staging> freeStaging_;
  std::vector<RequestId> completed_;  // what the last wait returned, its capacity kept
};

}  // namespace ddl
