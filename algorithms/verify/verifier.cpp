#include "algorithms/verify/verifier.hpp"

#include <algorithm>
#include <map>

#include "algorithms/execution/message_matching.hpp"
#include "algorithms/execution/schedule_run.hpp"
#include "algorithms/verify/race_check.hpp"
#include "algorithms/verify/symbolic_buffers.hpp"

namespace ddl {

std::string_view toString(VerificationProblem problem) {
  switch (problem) {
    case VerificationProblem::None: return "ok";
    case VerificationProblem::InvalidStep: return "invalid step";
    case VerificationProblem::Unmatched: return "unmatched message";
    case VerificationProblem::Race: return "race";
    case VerificationProblem::DoubleCounted: return "contribution counted twice";
    case VerificationProblem::UndefinedData: return "undefined data sent";
    case VerificationProblem::CyclicWait: return "cyclic wait";
    case VerificationProblem::WrongResult: return "wrong result";
    case VerificationProblem::TooLarge: return "too large to verify";
  }
  return "unknown";
}

namespace {

// Four bytes each: a 1 GiB bound on the symbolic buffers.
constexpr std::size_t kMaxSymbolicSegments = std::size_t{1} << 28;

VerificationReport report(VerificationProblem problem, Rank rank, StepIndex step, std::string message) {
  return {problem, rank, step, std::move(message)};
}

std::optional<VerificationReport> checkWellFormed(const std::vector<Program>& programs, const CollectiveSpec& spec) {
  for (const Program& program : programs) {
    const Rank rank = program.rank();
    if (rank != static_cast<Rank>(&program - programs.data()))
      return report(VerificationProblem::InvalidStep, rank, -1,
                    "program " + std::to_string(&program - programs.data()) + " is rank " + std::to_string(rank) + "'s");
    if (program.elements() != spec.elements)
      return report(VerificationProblem::InvalidStep, rank, -1,
                    "rank " + std::to_string(rank) + "'s program is for " + std::to_string(program.elements()) +
                        " elements, the collective for " + std::to_string(spec.elements));
    for (StepIndex index = 0; index < program.size(); ++index) {
      const Step& step = program.step(index);
      std::string fault;
      if (step.peer < 0 || step.peer >= spec.participants() || step.peer == rank) fault = "its peer is not another participant";
      if (step.range.offset < 0 || step.range.count < 0 || step.range.end() > spec.elements)
        fault = "its range is outside the buffer of " + std::to_string(spec.elements) + " elements";
      if (step.channel < 0) fault = "its channel is negative";
      for (StepIndex dependency : program.dependenciesOf(index))
        if (dependency < 0 || dependency >= index) fault = "it depends on a step that does not come before it";
      if (!fault.empty())
        return report(VerificationProblem::InvalidStep, rank, index, program.describe(index) + ": " + fault);
    }
  }
  return std::nullopt;
}

// Follows what each stuck step waits for, from the lowest stuck rank, until a step repeats; reports the
// cycle starting from its lowest rank.
VerificationReport describeCyclicWait(const std::vector<Program>& programs, const MessageMatching& matching,
                                      const ScheduleRun& run) {
  Rank rank = 0;
  while (run.execution(rank).finished()) ++rank;
  StepIndex step = run.execution(rank).firstIncomplete();
  std::vector<std::pair<Rank, StepIndex>> path;
  std::map<std::pair<Rank, StepIndex>, std::size_t> seen;
  while (seen.emplace(std::pair{rank, step}, path.size()).second) {
    path.emplace_back(rank, step);
    const StepIndex blocker = run.execution(rank).blocker(step);
    if (blocker >= 0) {
      step = blocker;
    } else {
      const Rank peer = programs[static_cast<std::size_t>(rank)].step(step).peer;
      step = matching.counterpart(rank, step);
      rank = peer;
    }
  }
  std::vector<std::pair<Rank, StepIndex>> cycle(path.begin() + static_cast<std::ptrdiff_t>(seen[{rank, step}]), path.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::string message = "cyclic wait: ";
  for (const auto& [r, s] : cycle) message += programs[static_cast<std::size_t>(r)].describe(s) + " waits for ";
  message += "rank " + std::to_string(cycle.front().first) + " step " + std::to_string(cycle.front().second);
  return report(VerificationProblem::CyclicWait, cycle.front().first, cycle.front().second, message);
}

}  // namespace

VerificationReport verify(const Schedule& schedule) {
  const CollectiveSpec& spec = schedule.spec();
  const std::vector<Program> programs = schedule.allPrograms();
  if (auto problem = checkWellFormed(programs, spec)) return *problem;

  const MessageMatching matching(programs);
  if (const auto& unmatched = matching.firstProblem())
    return report(VerificationProblem::Unmatched, unmatched->rank, unmatched->step, unmatched->message);

  for (const Program& program : programs)
    if (auto race = findRace(program)) return report(VerificationProblem::Race, program.rank(), race->later, race->message);

  const SegmentPartition partition(programs, spec);
  if (partition.size() * static_cast<std::size_t>(spec.participants()) > kMaxSymbolicSegments)
    return report(VerificationProblem::TooLarge, -1, -1,
                  std::to_string(spec.participants()) + " participants x " + std::to_string(partition.size()) +
                      " distinct buffer segments is more symbolic state than the verifier holds (" +
                      std::to_string(kMaxSymbolicSegments) + " segments in all)");
  SymbolicBuffers buffers(programs, spec, partition);
  ScheduleRun run(programs, matching);
  run.run(buffers);
  if (buffers.problem()) return *buffers.problem();
  if (!run.finished()) return describeCyclicWait(programs, matching, run);
  if (auto wrong = buffers.checkResult()) return *wrong;
  return {};
}

}  // namespace ddl
