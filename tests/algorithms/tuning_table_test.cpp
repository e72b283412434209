// A tuning table chooses the fastest configuration at the nearest size, and its reader refuses a table whose
// rows its own figures contradict.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

AlgorithmChoice named(const std::string& name, AlgorithmOptions options = {}) {
  return {&findAlgorithm(CollectiveKind::Allreduce, name), std::move(options)};
}

// Three sizes; recursive-doubling wins small, ddl 2x4 the middle, ring the largest.
TuningTable threeSizes() {
  TuningTable table;
  table.run = describeRun("ddlsim", "simulated");
  table.topology = "test-topology";
  table.gpus = 8;
  table.sizes = {1024, 65536, 4194304};
  table.candidates = {{named("ring"), {3e-5, 2e-4, 1e-3}},
                      {named("ddl", {.dims = std::vector<int>{2, 4}}), {2e-5, 1e-4, 1.1e-3}},
                      {named("recursive-doubling"), {1e-5, 3e-4, 5e-3}}};
  return table;
}

TEST(TuningTable, ChoosesTheBestAtTheSizeNearestOnALogScale) {
  const TuningTable table = threeSizes();
  EXPECT_EQ(table.choose(1024).label(), "recursive-doubling");
  EXPECT_EQ(table.choose(1).label(), "recursive-doubling");  // below the table: its smallest size
  EXPECT_EQ(table.choose(8191).label(), "recursive-doubling");  // 8192 is the geometric mean of 1024 and 65536
  EXPECT_EQ(table.choose(8192).label(), "recursive-doubling");  // a tie goes to the smaller size
  EXPECT_EQ(table.choose(8193).label(), "ddl 2x4");
  EXPECT_EQ(table.choose(524288).label(), "ddl 2x4");
  EXPECT_EQ(table.choose(524289).label(), "ring");
  EXPECT_EQ(table.choose(1e12).label(), "ring");  // above the table: its largest
}

TEST(TuningTable, RunnerUpIsTheNextFastestAndTiesGoToTheFirstListed) {
  TuningTable table = threeSizes();
  EXPECT_EQ(table.best(1), 1u);
  EXPECT_EQ(table.runnerUp(1), 0u);
  table.candidates[2].seconds[1] = 1e-4;  // now recursive-doubling ties with ddl at 64 KiB
  EXPECT_EQ(table.best(1), 1u);
  EXPECT_EQ(table.runnerUp(1), 2u);
}

// The runtimes cannot place NVLS's switch: what says a table chooses it, at which size, and only where it wins.
TEST(TuningTable, SaysWhereItChoosesAnAlgorithmThatReducesInASwitch) {
  TuningTable table = threeSizes();
  EXPECT_EQ(switchChoiceOf(table), "");
  table.candidates.push_back({named("nccl-nvls", {.channels = 16}), {1e-3, 1e-3, 1e-4}});
  EXPECT_EQ(switchChoiceOf(table), "chooses nccl-nvls 16 channels, 131072 B shards at 4194304 bytes");
  table.candidates.back().seconds[2] = 1e-2;  // a candidate that wins nowhere is no choice
  EXPECT_EQ(switchChoiceOf(table), "");
}

TEST(TuningTable, RoundTripsThroughJsonWithRowsThatSayTheBestAndItsMargin) {
  const TuningTable table = threeSizes();
  const nlohmann::json json = tuningTableToJson(table);
  EXPECT_EQ(json["rows"][1]["best"], "ddl 2x4");
  EXPECT_EQ(json["rows"][1]["runner_up"], "ring");
  EXPECT_DOUBLE_EQ(json["rows"][1]["margin"].get<double>(), 1.0);
  EXPECT_EQ(json["candidates"][1]["parameters"]["dims"], nlohmann::json::parse("[2, 4]"));
  const TuningTable back = tuningTableFromJson(nlohmann::json::parse(json.dump()), "t.json");
  EXPECT_EQ(back.topology, "test-topology");
  EXPECT_EQ(back.gpus, 8);
  EXPECT_EQ(back.sizes, table.sizes);
  ASSERT_EQ(back.candidates.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(back.candidates[c].choice.label(), table.candidates[c].choice.label());
    EXPECT_EQ(back.candidates[c].seconds, table.candidates[c].seconds);
  }
}

// The error tuningTableFromJson gives for `json` changed by `edit`: the field, file and JSON path first.
std::string refusal(void (*edit)(nlohmann::json&)) {
  nlohmann::json json = tuningTableToJson(threeSizes());
  edit(json);
  try {
    tuningTableFromJson(json, "t.json");
  } catch (const InvalidArgument& error) {
    return error.field();
  }
  return "accepted";
}

TEST(TuningTable, RefusesRowsItsOwnTimesContradict) {
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["rows"][0]["best"] = "ring"; }), "t.json: $.rows[0].best");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["rows"][0]["best"] = "tree"; }), "t.json: $.rows[0].best");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["rows"][0]["time_s"] = 1e-6; }), "t.json: $.rows[0].time_s");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["rows"][2]["bytes"] = 1024; }), "t.json: $.rows[2].bytes");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][0]["time_s"].erase(0); }), "t.json: $.candidates[0].time_s");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][1]["label"] = "ddl 4x2"; }), "t.json: $.candidates[1].label");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][1]["parameters"]["dims"] = {3, 3}; }),
            "t.json: $.candidates[1].parameters");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][0]["algorithm"] = "rnig"; }), "t.json: $.candidates[0].algorithm");
  // NVLS is a candidate like any other (a scenario's auto places its switches; the runtimes refuse a table
  // that chooses it: switchChoiceOf), so a renamed one fails on its label.
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][0]["algorithm"] = "nccl-nvls"; }), "t.json: $.candidates[0].label");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][0]["parameters"]["dims"] = {2, 4}; }),
            "t.json: $.candidates[0].parameters");  // ring takes no dims
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["candidates"][2] = j["candidates"][0]; }), "t.json: $.candidates[2].label");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["rows"] = nlohmann::json::array(); }), "t.json: $.rows");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["extra"] = 1; }), "t.json: $.extra");
  EXPECT_EQ(refusal([](nlohmann::json&) {}), "accepted");
}

}  // namespace
}  // namespace ddl
