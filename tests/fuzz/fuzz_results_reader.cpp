// libFuzzer harness: results files (ddlsim SCENARIO --json, ddlrun train --json), read, written back and
// read again: what the reader accepts, the writer must write, and the two readings must agree.

#include "algorithms/io/results_json.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    const ddl::ScalingResults first = ddl::resultsFromJson(json, ddl::fuzz::kSource);
    const nlohmann::json written = ddl::resultsToJson(first);
    const ddl::ScalingResults second = ddl::resultsFromJson(written, "written");
    if (ddl::resultsToJson(second) != written) __builtin_trap();  // the round trip changed something
  });
  return 0;
}
