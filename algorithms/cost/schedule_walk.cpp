#include "algorithms/cost/schedule_walk.hpp"

#include <stdexcept>

#include "algorithms/execution/schedule_run.hpp"

namespace ddl {
namespace {

class AlphaBetaGamma final : public RunObserver {
 public:
  AlphaBetaGamma(const CostModel& model, int elementBytes) : model_(model), elementBytes_(elementBytes) {}

  double transferSeconds(const Step& send, Rank from, Rank to) override {
    return model_.messageSeconds(from, to, bytes(send));
  }
  double reduceSeconds(const Step& receiveReduce) override { return model_.reduceSeconds(bytes(receiveReduce)); }
  bool transferEnded(Rank, StepIndex, Rank, StepIndex) override { return true; }
  bool reductionEnded(Rank, StepIndex) override { return true; }

 private:
  double bytes(const Step& step) const { return static_cast<double>(step.range.count) * elementBytes_; }

  const CostModel& model_;
  int elementBytes_;
};

}  // namespace

double walkSeconds(const Schedule& schedule, const CostModel& model) {
  const std::vector<Program> programs = schedule.allPrograms();
  const MessageMatching matching(programs);
  if (matching.firstProblem()) throw std::invalid_argument("cannot walk the schedule: " + matching.firstProblem()->message);
  ScheduleRun run(programs, matching);
  AlphaBetaGamma costs(model, schedule.spec().elementBytes);
  const double seconds = run.run(costs);
  if (!run.finished()) throw std::invalid_argument("cannot walk the schedule: it stops in a cyclic wait");
  return seconds;
}

}  // namespace ddl
