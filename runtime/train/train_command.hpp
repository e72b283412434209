#pragma once
// `ddlrun train SCENARIO`: its flags and checks; train_runner.hpp runs the iterations.

#include <optional>

#include "runtime/ddlrun_command.hpp"
#include "runtime/run_flags.hpp"
#include "runtime/train/train_runner.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

class TrainCommand final : public DdlrunCommand {
 public:
  explicit TrainCommand(CLI::App& app);
  bool chosen() const override { return command_->parsed(); }
  void check() override;
  std::chrono::milliseconds timeout() const override { return flags_.timeout(); }
  int run(int mpiRanks, SilenceWatchdog* watchdog) override;

 private:
  CLI::App* command_;
  RunFlags flags_;
  TrainOptions train_;
  std::optional<Scenario> scenario_;
};

}  // namespace ddl
