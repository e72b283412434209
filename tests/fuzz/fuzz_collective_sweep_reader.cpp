// libFuzzer harness: collective sweeps (ddlrun bench --json, ddlsim collective --json), the measurements
// `ddlsim calibrate network` reads, read, written back and read again: what the reader accepts, the writer
// must write, and the two readings must agree.

#include "algorithms/io/collective_sweep_json.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    ddl::fuzz::readWriteAndReadAgain(json, ddl::collectiveSweepFromJson, ddl::collectiveSweepToJson);
  });
  return 0;
}
