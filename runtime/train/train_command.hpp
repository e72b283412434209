#pragma once
// `ddlrun train SCENARIO`: its flags and checks; train_runner.hpp runs the iterations.

#include <optional>

#include "runtime/launch/ddlrun_command.hpp"
#include "runtime/train/train_runner.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

class TrainCommand final : public DdlrunCommand {
 public:
  explicit TrainCommand(CLI::App& app);
  void check() override;
  // --timeout-s beyond an iteration's compute: a rank waits for a peer still computing its backward pass.
  std::chrono::milliseconds timeout() const override { return train_.run.timeout; }
  void checkForJob(int mpiRanks) override;
  int launch(SilenceWatchdog* watchdog) override;

 private:
  TrainOptions train_;
  std::optional<Scenario> scenario_;
  int ranks_ = 0;
};

}  // namespace ddl
