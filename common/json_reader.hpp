#pragma once
// Reading JSON documents a user wrote, so that every error names the file and the path inside it
// ("scenario.json: $.algorithms[2].dims: ..."), as InvalidArgument with that as its field.

#include <cstdint>
#include <limits>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/invalid_argument.hpp"

namespace ddl {

class JsonReader {
 public:
  explicit JsonReader(std::string source, std::string path = "$") : source_(std::move(source)), path_(std::move(path)) {}

  JsonReader at(const std::string& key) const { return JsonReader(source_, path_ + "." + key); }
  JsonReader at(std::size_t index) const { return JsonReader(source_, path_ + "[" + std::to_string(index) + "]"); }
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& message) const { throw InvalidArgument(source_ + ": " + path_, message); }

  // The member `key` of `object` (which this reader points at); fails if either is missing.
  const nlohmann::json& member(const nlohmann::json& object, const std::string& key) const;
  bool has(const nlohmann::json& object, const std::string& key) const;
  // Fails on a member not in `known`, naming the nearest known one: a misspelt field should not be silently
  // ignored. Members named "description", "source", "sources", "confidence" and "note" are always allowed.
  void allowOnly(const nlohmann::json& object, std::initializer_list<std::string_view> known) const;
  void allowOnly(const nlohmann::json& object, const std::vector<std::string_view>& known) const;

  const nlohmann::json& object(const nlohmann::json& value) const;
  const nlohmann::json& array(const nlohmann::json& value) const;
  std::string string(const nlohmann::json& value) const;
  double number(const nlohmann::json& value, double min = -std::numeric_limits<double>::max(),
                double max = std::numeric_limits<double>::max()) const;
  std::int64_t integer(const nlohmann::json& value, std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;

  // Typed members: at(key).kind(member(object, key)).
  std::string stringAt(const nlohmann::json& object, const std::string& key) const {
    return at(key).string(member(object, key));
  }
  double numberAt(const nlohmann::json& object, const std::string& key, double min, double max) const {
    return at(key).number(member(object, key), min, max);
  }
  std::int64_t integerAt(const nlohmann::json& object, const std::string& key, std::int64_t min, std::int64_t max) const {
    return at(key).integer(member(object, key), min, max);
  }

 private:
  std::string source_;
  std::string path_;
};

// Documents nested deeper than this are refused: no ddlscale format comes near it, and the depth of a
// document bounds the recursion of everything that walks it.
constexpr int kMaxJsonDepth = 64;

// The parsed document; InvalidArgument naming `source` (and, where it can, the JSON path) if `text` is not
// JSON, is nested deeper than kMaxJsonDepth, or gives one field twice in an object.
nlohmann::json parseJson(std::string_view text, const std::string& source);

// Throws std::logic_error naming `what` and the JSON path if `document` holds a NaN or an infinity: the
// writers call it on what they are about to write, since nlohmann/json would write either as null, and a
// null where a figure belongs is a result that lies.
void requireFiniteNumbers(const nlohmann::json& document, const std::string& what);

// parseJson of a file's contents; InvalidArgument naming the file if it is missing, not a regular file,
// unreadable, or larger than this machine could parse.
nlohmann::json readJsonFile(const std::string& path);

}  // namespace ddl
