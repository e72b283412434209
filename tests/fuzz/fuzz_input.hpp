#pragma once
// What every harness does with libFuzzer's bytes: parse them as ddlscale parses a file, and tell expected
// refusals (InvalidArgument: bad input, named) from bugs. Anything else a reader throws, and every crash,
// hang or sanitizer report, is a finding.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"

namespace ddl::fuzz {

constexpr const char* kSource = "fuzz-input.json";

// The parsed document, or nothing where parseJson refuses the bytes (as readJsonFile would).
inline std::optional<nlohmann::json> parse(const std::uint8_t* data, std::size_t size) {
  try {
    return parseJson(std::string_view(reinterpret_cast<const char*>(data), size), kSource);
  } catch (const InvalidArgument&) {
    return std::nullopt;
  }
}

// Runs `read` on the document; a refusal must name the input.
template <class Read>
void readOrRefuse(const nlohmann::json& document, Read&& read) {
  try {
    read(document);
  } catch (const InvalidArgument& error) {
    if (std::string_view(error.what()).find(kSource) == std::string_view::npos)
      __builtin_trap();  // a refusal that does not name the file
  }
}

// The round trip of a format with a reader and a writer: what `fromJson` accepts, `toJson` must write so
// that `fromJson` reads it again to the same document. Returns the first reading, for checks of its own.
template <class FromJson, class ToJson>
auto readWriteAndReadAgain(const nlohmann::json& json, FromJson&& fromJson, ToJson&& toJson) {
  auto first = fromJson(json, kSource);
  const nlohmann::json written = toJson(first);
  if (toJson(fromJson(written, "written")) != written) __builtin_trap();  // the round trip changed something
  return first;
}

}  // namespace ddl::fuzz
