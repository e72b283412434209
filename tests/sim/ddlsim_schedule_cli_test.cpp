// `ddlsim schedule` as a user meets it: exit codes, messages that name the field, files written whole.

#include <nlohmann/json.hpp>

#include "tests/sim/ddlsim_runner.hpp"

namespace ddl::testing {
namespace {

class DdlsimSchedule : public DdlsimRun {
 protected:
  Result run(const std::string& arguments) { return ddlsim("schedule " + arguments); }
};

TEST_F(DdlsimSchedule, VerifiesAndCostsADdlSchedule) {
  const Result result = run("--algorithm ddl --ranks 64 --dims 4x4x4 --bytes 4096 --verify");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("verify               ok"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("closed form"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("schedule walk"), std::string::npos) << result.out;
}

TEST_F(DdlsimSchedule, BadInputExitsTwoNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--algorithm butterfly --ranks 4", "algorithm"},
      {"--algorithm ddl --ranks 64 --dims 4x4x2", "dims"},
      {"--algorithm ddl --ranks 64 --dims 4xx", "dims"},
      {"--algorithm ring --ranks 0", "ranks"},
      {"--algorithm ring --ranks 4 --bytes -8", "--bytes"},
      {"--algorithm ring --ranks 4 --bytes 10", "--bytes"},
      {"--algorithm ring", "--ranks"},
      {"--algorithm ring --ranks 4 --ranks-per-node 2", "ranks-per-node"},
      {"--algorithm hierarchical --ranks 6 --ranks-per-node 4", "ranks-per-node"},
      {"--algorithm ring --ranks 4 --collective broadcast", "--collective"},
      {"--algorithm ring --ranks 4 --rank 4", "--rank"},
      {"--algorithm ring --ranks 4 --bandwidth-Bps 0", "--bandwidth-Bps"},
      {"--algorithm ring --ranks four", "--ranks"},
      {"--algorithm ring --ranks 4 --frobnicate", "frobnicate"},
      {"--from /nonexistent/schedule.json", "/nonexistent/schedule.json"},
  };
  for (const auto& [arguments, field] : cases) {
    const Result result = run(arguments);
    EXPECT_EQ(result.exitCode, 2) << arguments << "\n" << result.err;
    EXPECT_NE(result.err.find(field), std::string::npos) << arguments << "\n" << result.err;
    EXPECT_TRUE(result.out.empty()) << arguments << "\n" << result.out;
  }
}

TEST_F(DdlsimSchedule, HelpExitsZero) {
  const Result result = run("--help");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("--dims"), std::string::npos);
}

TEST_F(DdlsimSchedule, JsonWrittenByOneRunIsVerifiedByAnother) {
  const fs::path file = dir_ / "ring.json";
  ASSERT_EQ(run("--algorithm ring --ranks 4 --bytes 64 --json --out " + file.string()).exitCode, 0);
  EXPECT_FALSE(fs::exists(file.string() + ".partial"));
  const Result result = run("--from " + file.string() + " --verify");
  EXPECT_EQ(result.exitCode, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("verify               ok"), std::string::npos) << result.out;
}

TEST_F(DdlsimSchedule, AWrongScheduleFromAFileFailsVerificationWithExitOne) {
  const fs::path file = dir_ / "ring.json";
  ASSERT_EQ(run("--algorithm ring --ranks 4 --bytes 64 --json --out " + file.string()).exitCode, 0);
  std::string text = slurp(file);
  text.replace(text.find("\"op\":\"receive-copy\""), 19, "\"op\":\"receive-reduce\"");
  std::ofstream(file) << text;
  const Result result = run("--from " + file.string() + " --verify");
  EXPECT_EQ(result.exitCode, 1) << result.err << result.out;
  EXPECT_NE(result.out.find("FAILED (contribution counted twice)"), std::string::npos) << result.out;
}

TEST_F(DdlsimSchedule, AWrongScheduleIsNotWrittenOutAndAnUnrunnableOneNotCosted) {
  const fs::path file = dir_ / "ring.json";
  ASSERT_EQ(run("--algorithm ring --ranks 4 --bytes 64 --json --out " + file.string()).exitCode, 0);
  nlohmann::json schedule = nlohmann::json::parse(slurp(file));
  // Rank 0's first step now names a range its peer does not: the messages no longer match.
  schedule["programs"][0]["steps"][0]["count"] = schedule["programs"][0]["steps"][0]["count"].get<int>() - 1;
  std::ofstream(file) << schedule.dump();
  const fs::path copy = dir_ / "copy.json";
  Result result = run("--from " + file.string() + " --verify --json --out " + copy.string());
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_FALSE(fs::exists(copy)) << "a schedule that failed --verify was written out";
  result = run("--from " + file.string());
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(result.out, "") << "a table was printed for a schedule that cannot run";
  EXPECT_NE(result.err.find("cannot run to its end"), std::string::npos) << result.err;
}

TEST_F(DdlsimSchedule, AMalformedFileExitsTwoNamingTheFileAndField) {
  const fs::path file = dir_ / "broken.json";
  std::ofstream(file) << R"({"collective": "allreduce", "ranks": 2, "elements": 4, "programs": [{"rank": 0, "steps": []}]})";
  Result result = run("--from " + file.string());
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find(file.string() + ": $.programs"), std::string::npos) << result.err;
  std::ofstream(file) << "{ not json";
  result = run("--from " + file.string());
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("not valid JSON"), std::string::npos) << result.err;
}

TEST_F(DdlsimSchedule, LeavesNoFileBehindWhenItCannotWriteOne) {
  const fs::path file = dir_ / "missing-directory" / "out.json";
  const Result result = run("--algorithm ring --ranks 4 --bytes 64 --json --out " + file.string());
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("--out"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(file));
}

}  // namespace
}  // namespace ddl::testing
