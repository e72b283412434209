// Collective sweeps (ddlrun bench --json, ddlsim collective --json) read back as they were written, those
// written before a field was recorded among them: what the reader accepts, the writer writes so that the
// reader takes it again (found by the collective_sweep_reader fuzz harness on its first seed).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "algorithms/io/collective_sweep_json.hpp"

namespace ddl::testing {
namespace {

// As ddlrun bench wrote it on 2026-11-30: no run, parameters, label, hosts or ranks per host.
const nlohmann::json kWrittenBeforeHostsWereRecorded = nlohmann::json::parse(R"({
  "algorithm": "halving-doubling", "collective": "allreduce", "configuration": "2 nodes x 2, by node", "ranks": 4,
  "rows": [{"algbw_Bps": 5970324.68, "busbw_Bps": 8955487.02, "bytes": 1048576, "count": 262144,
            "time_s": 0.1756313192, "wrong": 0}],
  "source": "ddlrun bench", "type": "float32"})");

TEST(CollectiveSweepJson, ASweepWrittenBeforeHostsWereRecordedReadsBackAfterAWrite) {
  const CollectiveSweep first = collectiveSweepFromJson(kWrittenBeforeHostsWereRecorded, "old.json");
  EXPECT_EQ(first.hosts, 0);
  const nlohmann::json written = collectiveSweepToJson(first);
  EXPECT_FALSE(written.contains("hosts")) << "an unknown host count is left out, as the file had it";
  EXPECT_FALSE(written.contains("ranks_per_host"));
  const CollectiveSweep second = collectiveSweepFromJson(written, "written");
  EXPECT_EQ(collectiveSweepToJson(second), written);
  EXPECT_EQ(second.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(second.rows[0].result.seconds, 0.1756313192);
}

TEST(CollectiveSweepJson, TodaysSweepKeepsItsHostsAndParametersThroughTheRoundTrip) {
  nlohmann::json today = kWrittenBeforeHostsWereRecorded;
  today["algorithm"] = "nccl-ring";
  today["parameters"] = {{"channels", 4}, {"ranks_per_node", 2}};
  today["label"] = "nccl-ring 4 channels, 2 per node";
  today["hosts"] = 2;
  today["ranks_per_host"] = 2;
  const nlohmann::json written = collectiveSweepToJson(collectiveSweepFromJson(today, "today.json"));
  EXPECT_EQ(written["hosts"], 2);
  EXPECT_EQ(written["ranks_per_host"], 2);
  EXPECT_EQ(written["parameters"], today["parameters"]);
  EXPECT_EQ(collectiveSweepToJson(collectiveSweepFromJson(written, "written")), written);
}

}  // namespace
}  // namespace ddl::testing
