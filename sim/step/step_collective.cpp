#include "sim/step/step_collective.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/engine/stuck_ranks.hpp"
#include "sim/step/step_program_runs.hpp"

namespace ddl::step {
namespace {

// Each rank starts its next run the moment it ends one, as the SimGrid engine's actors do.
class BackToBackRuns final : public ProgramRuns::Owner {
 public:
  BackToBackRuns(const std::vector<Program>& programs, StepPlatform& platform, const CollectiveSpec& spec, int runs)
      : programs_(programs), left_(programs.size(), runs), end_(programs.size(), 0), wireBytesPerByte_(spec.wireBytesPerByte()),
        ranks_(platform, spec.elementBytes, *this), simulation_(platform.simulation()) {}

  void start() {
    for (const Program& program : programs_) ranks_.start(program, wireBytesPerByte_);
  }
  void programEnded(Rank rank) override {
    const auto r = static_cast<std::size_t>(rank);
    end_[r] = simulation_.now();
    if (--left_[r] > 0) ranks_.start(programs_[r], wireBytesPerByte_);
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
  double wireBytesPerByte_;
  ProgramRuns ranks_;
  FluidSimulation& simulation_;
};

}  // namespace

CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs,
                                    RankSymmetryUse symmetry) {
  if (runs < 1) throw std::invalid_argument("runs must be at least 1");
  StepPlatform stepPlatform(platform, symmetry == RankSymmetryUse::Exploit ? findRankSymmetry(schedule, platform) : std::nullopt);
  std::vector<Program> programs;
  programs.reserve(static_cast<std::size_t>(stepPlatform.simulatedRanks()));
  for (Rank r = 0; r < stepPlatform.simulatedRanks(); ++r) programs.push_back(schedule.program(r));
  BackToBackRuns ranks(programs, stepPlatform, schedule.spec(), runs);
  ranks.start();
  stepPlatform.simulation().run();
  throwIfStuck(ranks.unfinished());
  // Every participant ends when the one that stands for it does; the ranks' ends are reported.
  std::vector<double> end(static_cast<std::size_t>(schedule.participants()));
  for (Rank r = 0; r < schedule.participants(); ++r)
    end[static_cast<std::size_t>(r)] = ranks.end()[static_cast<std::size_t>(stepPlatform.representative(r))];
  const double slowest = *std::max_element(end.begin(), end.end());
  end.resize(static_cast<std::size_t>(schedule.ranks()));
  return {slowest / runs, schedule.spec().bytes(), end};
}

int simulatedRanks(const Schedule& schedule, const PlatformDescription& platform) {
  const std::optional<RankSymmetry> symmetry = findRankSymmetry(schedule, platform);
  return symmetry ? symmetry->period : schedule.participants();
}

}  // namespace ddl::step
