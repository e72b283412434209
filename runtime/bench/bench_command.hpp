#pragma once
// `ddlrun bench`: its flags and checks; the harness (bench_harness.hpp) does the measuring.

#include <optional>
#include <string>

#include "algorithms/cli/algorithm_flags.hpp"
#include "runtime/bench/bench_harness.hpp"
#include "runtime/bench/nccl_tests_flags.hpp"
#include "runtime/launch/ddlrun_command.hpp"
#include "topologies/topology.hpp"

namespace ddl {

class BenchCommand final : public DdlrunCommand {
 public:
  explicit BenchCommand(CLI::App& app);
  void check() override;
  void checkForJob(int mpiRanks) override;
  int launch(SilenceWatchdog* watchdog) override;

 private:
  AlgorithmFlags algorithm_;
  std::string scheduleFile_;
  std::string topology_;                  // --topology, for --algorithm nccl
  std::optional<Topology> ncclTopology_;  // loaded where --algorithm nccl
  std::string minBytes_ = "1K", maxBytes_ = "64M", type_ = "float32", op_ = "sum", baseline_;
  int blocking_ = 1;
  int average_ = static_cast<int>(kNcclTestsAverage);
  double factor_ = 2;
  std::string stepBytes_;
  NcclTestsFlags ncclTestsFlags_;
  bool csv_ = false, json_ = false;
  bool checkAgreement_ = false;
  BenchOptions bench_;
  int ranks_ = 0;
};

}  // namespace ddl
