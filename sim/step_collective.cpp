#include "sim/step_collective.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/step_program_runs.hpp"
#include "sim/stuck_ranks.hpp"

namespace ddl::step {
namespace {

// Each rank starts its next run the moment it ends one, as the SimGrid engine's actors do.
class BackToBackRuns final : public ProgramRuns::Owner {
 public:
  BackToBackRuns(const std::vector<Program>& programs, StepPlatform& platform, int elementBytes, int runs)
      : programs_(programs), left_(programs.size(), runs), end_(programs.size(), 0),
        ranks_(platform, elementBytes, *this), simulation_(platform.simulation()) {}

  void start() {
    for (const Program& program : programs_) ranks_.start(program);
  }
  void programEnded(Rank rank) override {
    const auto r = static_cast<std::size_t>(rank);
    end_[r] = simulation_.now();
    if (--left_[r] > 0) ranks_.start(programs_[r]);
  }
  const std::vector<double>& end() const { return end_; }
  std::vector<Rank> unfinished() const {
    std::vector<Rank> ranks;
    for (std::size_t r = 0; r < left_.size(); ++r)
      if (left_[r] > 0) ranks.push_back(static_cast<Rank>(r));
    return ranks;
  }

 private:
  const std::vector<Program>& programs_;
  std::vector<int> left_;
  std::vector<double> end_;
  ProgramRuns ranks_;
  FluidSimulation& simulation_;
};

}  // namespace

CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs) {
  if (runs < 1) throw std::invalid_argument("runs must be at least 1");
  StepPlatform stepPlatform(platform);
  const std::vector<Program> programs = schedule.allPrograms();
  BackToBackRuns ranks(programs, stepPlatform, schedule.spec().elementBytes, runs);
  ranks.start();
  stepPlatform.simulation().run();
  throwIfStuck(ranks.unfinished());
  return {*std::max_element(ranks.end().begin(), ranks.end().end()) / runs, schedule.spec().bytes(), ranks.end()};
}

}  // namespace ddl::step
