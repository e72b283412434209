// libFuzzer harness: schedule files (ddlsim schedule --from), read, then verified and costed as
// `ddlsim schedule --from FILE --verify` does. A schedule the verifier accepts must also walk to its end.

#include "algorithms/cost/schedule_walk.hpp"
#include "algorithms/io/schedule_json.hpp"
#include "algorithms/verify/verifier.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    const ddl::Schedule schedule = ddl::scheduleFromJson(json, ddl::fuzz::kSource);
    if (!ddl::verify(schedule).ok()) return;
    const int ranks = schedule.ranks();
    ddl::walkSeconds(schedule, ddl::CostModel({ranks}, {{1e-6, 1e-9}}, 1e-10));
  });
  return 0;
}
