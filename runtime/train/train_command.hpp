#pragma once
// `ddlrun train SCENARIO`: its flags and checks; train_runner.hpp runs the iterations.

#include <optional>

#include "runtime/ddlrun_command.hpp"
#include "runtime/train/train_runner.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

class TrainCommand final : public DdlrunCommand {
 public:
  explicit TrainCommand(CLI::App& app);
  void check() override;
  int run(int mpiRanks, SilenceWatchdog* watchdog) override;

 private:
  TrainOptions train_;
  std::optional<Scenario> scenario_;
};

}  // namespace ddl
