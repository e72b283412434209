// libFuzzer harness: tuning tables (ddlsim tune --json), read, written back and read again: what the reader
// accepts, the writer must write, the two readings must agree, and each of its sizes must choose that row's best.

#include "algorithms/io/tuning_table.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    const ddl::TuningTable first = ddl::fuzz::readWriteAndReadAgain(json, ddl::tuningTableFromJson, ddl::tuningTableToJson);
    // A collective of one of the table's sizes runs that row's best.
    for (std::size_t s = 0; s < first.sizes.size(); ++s)
      if (first.choose(static_cast<double>(first.sizes[s])).label() != first.candidates[first.best(s)].choice.label())
        __builtin_trap();
  });
  return 0;
}
