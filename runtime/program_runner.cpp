#include "runtime/program_runner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "algorithms/execution/program_execution.hpp"
#include "runtime/reduce_alignment.hpp"

namespace ddl {
namespace {

// What the runner tracks of each step it has posted.
struct StepProgress {
  // How the step is cut, and for what: its type's element size and the transport's eager limit then.
  struct Cut {
    std::size_t elementBytes = 0;
    std::size_t eager = 0;
  } cutFor;
  int pieces = 0;
  Elements pieceElements = 1;  // of every piece but the last
  int arrived = 0;        // pieces transferred
  int reducing = 0;       // pieces handed to postReduce
  int reduced = 0;        // pieces reduced
  bool reduceAllowed = false;  // ProgramExecution asked for the reduction
  ProgramRunner::Staging staging;
  ProgramRunner::Staging lastStaging;  // what `staging` was on the step's last run
  // Where in `staging` the step's first element lands: as far past a 16-byte boundary as its destination,
  // so that the reduction of every piece takes the kernels' vector path (reduce_alignment.hpp).
  std::size_t stagingShift = 0;
  std::vector<std::uint8_t> pieceArrived;  // bytes, not bits: cleared on every run
  std::vector<Transport::RepeatedPost> repeated;  // per piece: the same post on every run
};

// A step of at most this many eager messages goes as eager messages (Transport::eagerBytes) rather than
// as one message that waits for a handshake. Measured on 2 ranks of this machine kind over Open MPI's
// shared memory, a ring allreduce cut into 4000-byte pieces against whole steps: steps of 8 KiB 1.76x as
// fast, 16 KiB 1.39x, 32 KiB (8 pieces) 1.09x, 64 KiB (16 pieces) 0.98x, 128 KiB 0.88x
// (analysis/results/2026-12-04-runtime-eager-pieces).
constexpr std::size_t kEagerPiecesPerStep = 8;

// Programs a runner keeps prepared: a training iteration runs one per gradient bucket, over and over.
constexpr std::size_t kPreparedPrograms = 16;

}  // namespace

struct ProgramRunner::Prepared {
  explicit Prepared(const Program& source) : program(source), execution(program), progress(static_cast<std::size_t>(program.size())) {}
  Program program;  // a copy: the caller's may be gone, and another at its address, by the next run
  ProgramExecution execution;
  std::vector<StepProgress> progress;  // per step
  std::vector<ProgramExecution::Action> actions;
  std::unique_ptr<const OutOfPlacePlan> outOfPlace;  // made on the program's first run out of place
  std::size_t stagingReservedFor = 0;  // the element size whose staging every step has had a block for
};

ProgramRunner::Prepared& ProgramRunner::prepare(const Program& program) {
  for (auto it = prepared_.begin(); it != prepared_.end(); ++it) {
    if ((*it)->program != program) continue;
    std::rotate(it, it + 1, prepared_.end());
    Prepared& again = *prepared_.back();
    again.execution.restart();
    for (StepProgress& step : again.progress) {
      step.arrived = step.reducing = step.reduced = 0;
      step.reduceAllowed = false;
      step.staging = {};
    }
    again.actions.clear();
    return again;
  }
  if (prepared_.size() == kPreparedPrograms) {
    forgetPosts(*prepared_.front());
    prepared_.erase(prepared_.begin());
  }
  prepared_.push_back(std::make_unique<Prepared>(program));
  return *prepared_.back();
}

Elements ProgramRunner::piecesFor(const Step& step, Elements pieceElements, std::size_t elementBytes, std::size_t eager) {
  const std::size_t bytes = static_cast<std::size_t>(step.range.count) * elementBytes;
  if (eager < elementBytes || bytes <= eager || bytes > kEagerPiecesPerStep * eager) return pieceElements;
  // As few eager messages as hold the step, of even sizes: a 2-rank recursive-doubling allreduce of 4 KiB
  // went 1.2x as fast exchanging two messages of 2 KiB as 4032 bytes and 64
  // (analysis/results/2026-12-04-runtime-eager-pieces).
  const auto eagerElements = static_cast<Elements>(eager / elementBytes);
  const Elements messages = (step.range.count + eagerElements - 1) / eagerElements;
  return std::min(pieceElements, (step.range.count + messages - 1) / messages);
}

ProgramRunner::ProgramRunner(Transport& transport, RunOptions options) : transport_(transport), options_(options) {}

void ProgramRunner::forgetPosts(Prepared& prepared) {
  for (StepProgress& step : prepared.progress)
    for (Transport::RepeatedPost& post : step.repeated) transport_.forgetRepeatedPost(post);
}

ProgramRunner::~ProgramRunner() {
  for (const auto& prepared : prepared_) forgetPosts(*prepared);
  for (char* block : stagingBlocks_) transport_.deallocate(block);
}

ProgramRunner::Staging ProgramRunner::staging(std::size_t bytes, const char* preferred) {
  // `preferred` if it is free and holds `bytes`, else the smallest free block that does: a run has a few
  // receive-reduces in flight at a time, so the free list is short, and a scan allocates nothing.
  auto best = freeStaging_.end();
  for (auto it = freeStaging_.begin(); it != freeStaging_.end(); ++it) {
    if (it->capacity < bytes) continue;
    if (it->block == preferred) {
      best = it;
      break;
    }
    if (best == freeStaging_.end() || it->capacity < best->capacity) best = it;
  }
  if (best != freeStaging_.end()) {
    const Staging found = *best;
    *best = freeStaging_.back();
    freeStaging_.pop_back();
    return found;
  }
  const Staging made{static_cast<char*>(transport_.allocate(std::max<std::size_t>(bytes, 1))), bytes};
  stagingBlocks_.push_back(made.block);
  return made;
}

void ProgramRunner::releaseStaging(Staging staging) { freeStaging_.push_back(staging); }

void ProgramRunner::reserveStaging(Prepared& prepared, std::size_t elementBytes) {
  // A block per receive-reduce step, each the step's own from then on (its lastStaging, which staging()
  // prefers): a run then finds a free block for every step without allocating. Room for the shift that
  // places the staged copy as its destination is placed (stagingShift).
  std::vector<Staging> held;
  for (StepIndex index = 0; index < prepared.program.size(); ++index) {
    const Step& step = prepared.program.step(index);
    if (step.kind != StepKind::ReceiveReduce) continue;
    StepProgress& p = prepared.progress[static_cast<std::size_t>(index)];
    p.lastStaging = staging(static_cast<std::size_t>(step.range.count) * elementBytes + kReduceVectorBytes - 1, p.lastStaging.block);
    held.push_back(p.lastStaging);
  }
  for (const Staging& block : held) releaseStaging(block);
}

void ProgramRunner::remember(RequestId id, Posted work) {
  if (posted_.empty()) firstPost_ = id;
  if (id != firstPost_ + static_cast<RequestId>(posted_.size()))
    throw std::logic_error("the transport numbered a post " + std::to_string(id) + ", not " +
                           std::to_string(firstPost_ + static_cast<RequestId>(posted_.size())));
  posted_.push_back(work);
}

const ProgramRunner::Posted& ProgramRunner::posted(RequestId id) const {
  const RequestId index = id - firstPost_;
  if (index < 0 || index >= static_cast<RequestId>(posted_.size()))
    throw std::logic_error("the transport finished request " + std::to_string(id) + ", which this run never posted");
  return posted_[static_cast<std::size_t>(index)];
}

void ProgramRunner::run(const Program& program, const void* input, void* output, DataType type, ReduceOp op) {
  try {
    runSteps(program, input, output, type, op);
  } catch (const TransportAbandoned&) {
    throw;  // given up before: nothing of this run was left posted
  } catch (const std::exception& error) {
    // End the job (or give the transport up) here, before the caller unwinds: the buffer and the staging
    // that posted receives write into must outlive them, and both belong to frames an exception would leave.
    transport_.fail("running a schedule (" + std::to_string(program.size()) + " steps): " + error.what());
  }
}

void ProgramRunner::runSteps(const Program& caller, const void* input, void* output, DataType type, ReduceOp op) {
  Prepared& prepared = prepare(caller);
  // Its first transfers are posted at once (below): once prepared, it posts them.
  if (options_.timeRuns) lastRun_.firstPost = lastRun_.lastCompletion = std::chrono::steady_clock::now();
  const Program& program = prepared.program;
  ProgramExecution& execution = prepared.execution;
  std::vector<StepProgress>& progress = prepared.progress;
  std::vector<ProgramExecution::Action>& actions = prepared.actions;
  posted_.clear();
  const std::size_t elementBytes = sizeOf(type);
  const auto pieceElements = static_cast<Elements>(std::max<std::size_t>(1, options_.pieceBytes / elementBytes));
  char* base = static_cast<char*>(output);
  const char* in = static_cast<const char*>(input);
  const auto at = [elementBytes](Elements offset) { return static_cast<std::size_t>(offset) * elementBytes; };
  // Out of place: where each step reads its current values, and what is copied to the output first.
  const OutOfPlacePlan* plan = nullptr;
  if (in != base) {
    if (!prepared.outOfPlace) prepared.outOfPlace = std::make_unique<const OutOfPlacePlan>(program);
    plan = prepared.outOfPlace.get();
    for (const Range range : plan->copiedFirst()) transport_.copy(base + at(range.offset), in + at(range.offset), at(range.count));
  }
  // The values a send or reduction of `index` reads at `offset`.
  auto current = [&](StepIndex index, Elements offset) -> const char* {
    return (plan && plan->readsInput(index) ? in : base) + at(offset);
  };
  auto pieceRange = [&](const Step& step, const StepProgress& p, int piece) {
    const Elements begin = step.range.offset + piece * p.pieceElements;
    return Range{begin, std::min(p.pieceElements, step.range.end() - begin)};
  };

  auto reducePiece = [&](StepIndex index, int piece) {
    const Step& step = program.step(index);
    StepProgress& p = progress[static_cast<std::size_t>(index)];
    const Range range = pieceRange(step, p, piece);
    remember(transport_.postReduce(base + at(range.offset), current(index, range.offset),
                                   p.staging.block + p.stagingShift + at(range.offset - step.range.offset),
                                   static_cast<std::size_t>(range.count), type, op),
             {index, piece, Work::Reduce});
    ++p.reducing;
  };
  auto reduceArrivedPieces = [&](StepIndex index) {
    StepProgress& p = progress[static_cast<std::size_t>(index)];
    for (int piece = p.reducing; piece < p.pieces; ++piece) {
      if (!p.pieceArrived[static_cast<std::size_t>(piece)]) break;
      reducePiece(index, piece);
    }
  };
  // The step completes once ProgramExecution asked for its reduction and every piece has been added.
  auto finishReductionIfDone = [&](StepIndex index) {
    StepProgress& p = progress[static_cast<std::size_t>(index)];
    if (!p.reduceAllowed || p.reduced < p.pieces || !p.staging.block) return;
    releaseStaging(p.staging);
    p.staging = {};
    execution.reduced(index, actions);
  };
  auto perform = [&] {
    for (std::size_t a = 0; a < actions.size(); ++a) {  // completions below may append actions
      const ProgramExecution::Action action = actions[a];
      const Step& step = program.step(action.step);
      StepProgress& p = progress[static_cast<std::size_t>(action.step)];
      if (action.kind == ProgramExecution::ActionKind::Reduce) {
        p.reduceAllowed = true;
        reduceArrivedPieces(action.step);
        finishReductionIfDone(action.step);
        continue;
      }
      // Cut as on the step's last run, unless the type or the transport's eager limit changed since.
      const std::size_t eager = transport_.eagerBytes(step.peer);
      if (p.cutFor.elementBytes != elementBytes || p.cutFor.eager != eager) {
        p.cutFor = {elementBytes, eager};
        p.pieceElements = piecesFor(step, pieceElements, elementBytes, eager);
        p.pieces = static_cast<int>((step.range.count + p.pieceElements - 1) / p.pieceElements);
        p.pieceArrived.resize(static_cast<std::size_t>(p.pieces));
        // Other pieces, other posts.
        for (Transport::RepeatedPost& post : p.repeated) transport_.forgetRepeatedPost(post);
        p.repeated.assign(static_cast<std::size_t>(p.pieces), {});
      }
      std::fill(p.pieceArrived.begin(), p.pieceArrived.end(), false);
      // The block the step had last run, where free: its receives are then the same posts as then.
      if (step.kind == StepKind::ReceiveReduce) {
        p.stagingShift = reduceMisalignment(base + at(step.range.offset));
        p.staging = p.lastStaging = staging(p.stagingShift + at(step.range.count), p.lastStaging.block);
      }
      for (int piece = 0; piece < p.pieces; ++piece) {
        const Range range = pieceRange(step, p, piece);
        const std::size_t bytes = static_cast<std::size_t>(range.count) * elementBytes;
        Transport::RepeatedPost& repeated = p.repeated[static_cast<std::size_t>(piece)];
        RequestId id;
        if (step.sends()) {
          id = transport_.postRepeatedSend(step.peer, step.channel, current(action.step, range.offset), bytes, repeated);
        } else if (step.kind == StepKind::ReceiveCopy) {
          id = transport_.postRepeatedReceive(step.peer, step.channel, base + at(range.offset), bytes, repeated);
        } else {
          char* staged = p.staging.block + p.stagingShift + at(range.offset - step.range.offset);
          id = transport_.postRepeatedReceive(step.peer, step.channel, staged, bytes, repeated);
        }
        remember(id, {action.step, piece, Work::Transfer});
      }
    }
    actions.clear();
  };

  if (prepared.stagingReservedFor < elementBytes) {
    reserveStaging(prepared, elementBytes);
    prepared.stagingReservedFor = elementBytes;
  }
  execution.start(actions);
  perform();
  while (!execution.finished()) {
    // The patience counts from each wait: a run waits as long as its messages keep ending.
    completed_.clear();
    transport_.waitSome(options_.timeout, completed_);
    for (RequestId id : completed_) {
      const auto [index, piece, work] = posted(id);
      const Step& step = program.step(index);
      StepProgress& p = progress[static_cast<std::size_t>(index)];
      if (work == Work::Reduce) {
        ++p.reduced;
        finishReductionIfDone(index);
        continue;
      }
      p.pieceArrived[static_cast<std::size_t>(piece)] = true;
      // A receive-reduce adds each piece once it lands, if nothing it depends on is still running.
      if (step.kind == StepKind::ReceiveReduce && (p.reduceAllowed || execution.dependenciesComplete(index)))
        reduceArrivedPieces(index);
      if (++p.arrived == p.pieces) execution.transferred(index, actions);
    }
    perform();
  }
  // Read once at the end, not after every wait: the last wait returned just before.
  if (options_.timeRuns && !program.steps().empty()) lastRun_.lastCompletion = std::chrono::steady_clock::now();
}

}  // namespace ddl
