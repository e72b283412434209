#include "runtime/program_runner.hpp"

#include <unordered_map>

#include "algorithms/execution/program_execution.hpp"

namespace ddl {
namespace {

// What the runner tracks of each step it has posted.
struct StepProgress {
  int pieces = 0;
  int arrived = 0;        // pieces transferred
  int reducing = 0;       // pieces handed to postReduce
  int reduced = 0;        // pieces reduced
  bool reduceAllowed = false;  // ProgramExecution asked for the reduction
  char* staging = nullptr;
  std::vector<bool> pieceArrived;
};

enum class Work : std::uint8_t { Transfer, Reduce };

}  // namespace

ProgramRunner::~ProgramRunner() {
  for (const auto& [capacity, block] : freeStaging_) transport_.deallocate(block);
  for (const auto& [block, capacity] : usedStaging_) transport_.deallocate(block);
}

char* ProgramRunner::staging(std::size_t bytes) {
  char* block = nullptr;
  std::size_t capacity = bytes;
  if (auto it = freeStaging_.lower_bound(bytes); it != freeStaging_.end()) {
    capacity = it->first;
    block = it->second;
    freeStaging_.erase(it);
  } else {
    block = static_cast<char*>(transport_.allocate(std::max<std::size_t>(bytes, 1)));
  }
  usedStaging_.emplace(block, capacity);
  return block;
}

void ProgramRunner::releaseStaging(char* block) {
  auto it = usedStaging_.find(block);
  freeStaging_.emplace(it->second, block);
  usedStaging_.erase(it);
}

void ProgramRunner::run(const Program& program, void* buffer, DataType type) {
  try {
    runSteps(program, buffer, type);
  } catch (const std::exception& error) {
    // End the job here, before the caller unwinds: the buffer and the staging that posted receives write
    // into must outlive them, and both belong to frames an exception would leave.
    transport_.abortJob("running a schedule (" + std::to_string(program.size()) + " steps): " + error.what());
  }
}

void ProgramRunner::runSteps(const Program& program, void* buffer, DataType type) {
  lastRun_.firstPost = lastRun_.lastCompletion = std::chrono::steady_clock::now();
  bool posted = false;
  const std::size_t elementBytes = sizeOf(type);
  const auto pieceElements = static_cast<Elements>(std::max<std::size_t>(1, options_.pieceBytes / elementBytes));
  char* base = static_cast<char*>(buffer);
  auto pieceRange = [&](const Step& step, int piece) {
    const Elements begin = step.range.offset + piece * pieceElements;
    return Range{begin, std::min(pieceElements, step.range.end() - begin)};
  };

  ProgramExecution execution(program);
  std::vector<StepProgress> progress(static_cast<std::size_t>(program.size()));
  std::unordered_map<RequestId, std::tuple<StepIndex, int, Work>> requests;
  std::vector<ProgramExecution::Action> actions;

  auto reducePiece = [&](StepIndex index, int piece) {
    const Step& step = program.step(index);
    StepProgress& p = progress[static_cast<std::size_t>(index)];
    const Range range = pieceRange(step, piece);
    const std::size_t staged = static_cast<std::size_t>(range.offset - step.range.offset) * elementBytes;
    requests[transport_.postReduce(base + range.offset * static_cast<Elements>(elementBytes), p.staging + staged,
                                   static_cast<std::size_t>(range.count), type)] = {index, piece, Work::Reduce};
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
    if (!p.reduceAllowed || p.reduced < p.pieces || !p.staging) return;
    releaseStaging(p.staging);
    p.staging = nullptr;
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
      p.pieces = static_cast<int>((step.range.count + pieceElements - 1) / pieceElements);
      p.pieceArrived.assign(static_cast<std::size_t>(p.pieces), false);
      if (step.kind == StepKind::ReceiveReduce) p.staging = staging(static_cast<std::size_t>(step.range.count) * elementBytes);
      for (int piece = 0; piece < p.pieces; ++piece) {
        const Range range = pieceRange(step, piece);
        const std::size_t bytes = static_cast<std::size_t>(range.count) * elementBytes;
        char* local = base + range.offset * static_cast<Elements>(elementBytes);
        if (!posted) {
          lastRun_.firstPost = std::chrono::steady_clock::now();
          posted = true;
        }
        RequestId id;
        if (step.sends()) {
          id = transport_.postSend(step.peer, step.channel, local, bytes);
        } else if (step.kind == StepKind::ReceiveCopy) {
          id = transport_.postReceive(step.peer, step.channel, local, bytes);
        } else {
          id = transport_.postReceive(step.peer, step.channel, p.staging + (range.offset - step.range.offset) * static_cast<Elements>(elementBytes), bytes);
        }
        requests[id] = {action.step, piece, Work::Transfer};
      }
    }
    actions.clear();
  };

  execution.start(actions);
  perform();
  while (!execution.finished()) {
    const std::vector<RequestId> completed = transport_.waitSome(std::chrono::steady_clock::now() + options_.timeout);
    lastRun_.lastCompletion = std::chrono::steady_clock::now();
    for (RequestId id : completed) {
      const auto [index, piece, work] = requests.at(id);
      requests.erase(id);
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
}

}  // namespace ddl
