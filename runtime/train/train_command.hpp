#pragma once
// `ddlrun train SCENARIO`: its flags and checks; train_runner.hpp runs the iterations.

#include <optional>
#include <string>

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
  JobOptions job(SilenceWatchdog* watchdog) const;  // the flags' job, computing as --host-compute says

  TrainOptions train_;
  std::string hostCompute_ = "busy";
  std::optional<Scenario> scenario_;
  int ranks_ = 0;
};

}  // namespace ddl
