// A computation run in a forked process returns its values exactly, and its failures come back as the
// parent's exceptions: bad input as InvalidArgument with its field, anything else as SimulationError.

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <functional>
#include <stdexcept>

#include <gtest/gtest.h>

#include "common/invalid_argument.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {
namespace {

TEST(FreshProcess, ReturnsTheChildsValuesBitForBit) {
  const std::vector<double> values{0.1, 1e-300, -0.0, 166.36103912345678};
  EXPECT_EQ(inFreshProcess([&] { return values; }), values);
  EXPECT_TRUE(inFreshProcess([] { return std::vector<double>{}; }).empty());
}

TEST(FreshProcess, RunsInAnotherProcessLeavingThisOneAsItWas) {
  int counter = 0;
  inFreshProcess([&] {
    counter = 1;
    return std::vector<double>{};
  });
  EXPECT_EQ(counter, 0);
}

TEST(FreshProcess, ThrowsTheChildsFailuresAgain) {
  try {
    inFreshProcess([]() -> std::vector<double> { throw InvalidArgument("s.json: $.gpus[2]", "too many"); });
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "s.json: $.gpus[2]");
    EXPECT_EQ(error.message(), "too many");
  }
  EXPECT_THROW(inFreshProcess([]() -> std::vector<double> { throw SimulationError("ranks 3 and 5 wait forever"); }),
               SimulationError);
  try {
    inFreshProcess([]() -> std::vector<double> { throw std::runtime_error("out of ideas"); });
    ADD_FAILURE() << "no exception";
  } catch (const SimulationError& error) {
    EXPECT_STREQ(error.what(), "out of ideas");
  }
}

TEST(FreshProcess, ReturnsMoreThanAPipeHoldsAtOnce) {
  std::vector<double> many(100'000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = 1.0 / static_cast<double>(i + 1);
  EXPECT_EQ(inFreshProcess([&] { return many; }), many);
}

TEST(FreshProcess, AChildThatExitsWithoutAResultIsASimulationError) {
  EXPECT_THROW(inFreshProcess([]() -> std::vector<double> { ::_exit(0); }), SimulationError);
  EXPECT_THROW(inFreshProcess([]() -> std::vector<double> { ::_exit(3); }), SimulationError);
}

TEST(FreshProcesses, ReturnResultsInTheTasksOrderWhateverOrderTheyEndIn) {
  std::vector<std::function<std::vector<double>()>> tasks;
  for (int i = 0; i < 7; ++i)
    tasks.push_back([i] {
      ::usleep(static_cast<useconds_t>((7 - i) * 20000));  // the first ends last, 20 ms after the third
      return std::vector<double>{static_cast<double>(i)};
    });
  std::vector<std::size_t> finished;
  const auto results = inFreshProcesses(tasks, 3, [&](std::size_t task, const std::vector<double>& values) {
    EXPECT_EQ(values, std::vector<double>{static_cast<double>(task)});
    finished.push_back(task);
  });
  ASSERT_EQ(results.size(), 7u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(results[static_cast<std::size_t>(i)], std::vector<double>{static_cast<double>(i)});
  EXPECT_EQ(finished.size(), 7u);
  EXPECT_NE(finished.front(), 0u) << "three ran at once, and the first of them ended last";
}

TEST(FreshProcesses, AFailureStopsTheOthersAndIsThrown) {
  std::vector<std::function<std::vector<double>()>> tasks;
  tasks.push_back([]() -> std::vector<double> { throw InvalidArgument("s.json: $.gpus", "bad"); });
  for (int i = 0; i < 3; ++i)
    tasks.push_back([] {
      ::sleep(30);  // stopped long before this ends
      return std::vector<double>{};
    });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(inFreshProcesses(tasks, 4), InvalidArgument);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(SweepJobs, RunAsManyAtOnceAsTheMemoryHolds) {
  ::setenv("DDLSCALE_MEMORY_BYTES", "1000000000", 1);  // a machine of 1 GB
  EXPECT_EQ(jobsThatFit(8, 3e8), 3);
  EXPECT_EQ(jobsThatFit(8, 2e9), 1);  // one at a time, the most that can run at all
  EXPECT_EQ(jobsThatFit(2, 1e6), 2);
  EXPECT_EQ(jobsThatFit(4, 0), 4);
  ::unsetenv("DDLSCALE_MEMORY_BYTES");
}

TEST(FreshProcess, AChildThatDiesIsASimulationError) {
  try {
    inFreshProcess([]() -> std::vector<double> {
      std::raise(SIGKILL);
      return {};
    });
    ADD_FAILURE() << "no exception";
  } catch (const SimulationError& error) {
    EXPECT_NE(std::string(error.what()).find("signal 9"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ddl
