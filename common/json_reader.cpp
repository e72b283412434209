#include "common/json_reader.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "common/input_file.hpp"
#include "common/machine_memory.hpp"
#include "common/nearest_name.hpp"
#include "common/number_text.hpp"

namespace ddl {
namespace {

// Where the parser is in the document, so that an error found while parsing can name its JSON path.
class ParsePosition {
 public:
  void enter(bool array) {
    countElement();
    frames_.push_back({array, 0, {}, {}});
  }
  void leave() { frames_.pop_back(); }
  void value() { countElement(); }
  // Returns false if the current object already has this key.
  bool key(const std::string& key) {
    Frame& frame = frames_.back();
    frame.key = key;
    return frame.keys.insert(key).second;
  }
  std::string path() const {
    std::string path = "$";
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& frame = frames_[i];
      path += frame.array ? "[" + std::to_string(frame.elements - 1) + "]" : "." + frame.key;
    }
    return path;
  }

 private:
  struct Frame {
    bool array;
    std::size_t elements;
    std::string key;
    std::set<std::string> keys;
  };
  void countElement() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().elements;
  }
  std::vector<Frame> frames_;
};

// The DOM nlohmann/json builds takes this many times the bytes of the text it parses, and the text itself:
// 6 to 11 times on the shipped models and schedules, up to about 30 times for the densest text there is,
// an array of empty objects.
constexpr double kParsedBytesPerTextByte = 32;

}  // namespace

const nlohmann::json& JsonReader::member(const nlohmann::json& object, const std::string& key) const {
  this->object(object);
  auto it = object.find(key);
  if (it == object.end()) at(key).fail("missing");
  return *it;
}

bool JsonReader::has(const nlohmann::json& object, const std::string& key) const {
  return this->object(object).contains(key);
}

void JsonReader::allowOnly(const nlohmann::json& object, std::initializer_list<std::string_view> known) const {
  allowOnly(object, std::vector<std::string_view>(known));
}

void JsonReader::allowOnly(const nlohmann::json& object, const std::vector<std::string_view>& names) const {
  for (const auto& [key, value] : this->object(object).items()) {
    (void)value;
    if (key == "description" || key == "source" || key == "sources" || key == "confidence" || key == "note") continue;
    bool found = false;
    for (std::string_view name : names) found = found || name == key;
    if (!found) at(key).fail("unknown field" + didYouMean(key, names) + "; the known ones are " + listOfNames(names));
  }
}

const nlohmann::json& JsonReader::object(const nlohmann::json& value) const {
  if (!value.is_object()) fail("expected an object");
  return value;
}

const nlohmann::json& JsonReader::array(const nlohmann::json& value) const {
  if (!value.is_array()) fail("expected an array");
  return value;
}

std::string JsonReader::string(const nlohmann::json& value) const {
  if (!value.is_string()) fail("expected a string");
  return value.get<std::string>();
}

double JsonReader::number(const nlohmann::json& value, double min, double max) const {
  if (!value.is_number()) fail("expected a number");
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < min || number > max)
    fail(shortNumber(number) + " is outside " + shortNumber(min) + " .. " + shortNumber(max));
  return number;
}

std::int64_t JsonReader::integer(const nlohmann::json& value, std::int64_t min, std::int64_t max) const {
  if (!value.is_number_integer()) fail("expected an integer");
  const bool tooLarge = value.is_number_unsigned() &&
                        value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const auto number = tooLarge ? std::numeric_limits<std::int64_t>::max() : value.get<std::int64_t>();
  if (tooLarge || number < min || number > max)
    fail((tooLarge ? value.dump() : std::to_string(number)) + " is outside " + std::to_string(min) + " .. " +
         std::to_string(max));
  return number;
}

nlohmann::json parseJson(std::string_view text, const std::string& source) {
  ParsePosition position;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (depth >= kMaxJsonDepth)
          throw InvalidArgument(source + ": " + position.path(),
                                "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
        position.enter(event == Event::array_start);
        break;
      case Event::object_end:
      case Event::array_end: position.leave(); break;
      case Event::key:
        if (!position.key(parsed.get<std::string>()))
          throw InvalidArgument(source + ": " + position.path(), "the field '" + parsed.get<std::string>() + "' is given twice");
        break;
      case Event::value: position.value(); break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::exception& error) {
    // nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string message = error.what();
    if (const auto start = message.find("] "); start != std::string::npos) message = message.substr(start + 2);
    throw InvalidArgument(source, "not valid JSON: " + message);
  }
}

namespace {

void requireFinite(const nlohmann::json& value, const std::string& path, const std::string& what) {
  if (value.is_number_float() && !std::isfinite(value.get<double>()))
    throw std::logic_error("internal error: " + what + " has " + value.dump() + " at " + path);
  if (value.is_object())
    for (const auto& [key, member] : value.items()) requireFinite(member, path + "." + key, what);
  if (value.is_array())
    for (std::size_t i = 0; i < value.size(); ++i) requireFinite(value[i], path + "[" + std::to_string(i) + "]", what);
}

}  // namespace

void requireFiniteNumbers(const nlohmann::json& document, const std::string& what) {
  requireFinite(document, "$", what);
}

nlohmann::json readJsonFile(const std::string& path) {
  const std::uintmax_t bytes = checkInputFile(path, path);
  requireMemory(static_cast<double>(bytes) * kParsedBytesPerTextByte, path, "parsing this file");
  // Read no more than the size that was checked: files of /proc report 0 bytes and hold more, and a file
  // may grow while it is read.
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<std::size_t>(bytes) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw InvalidArgument(path, "cannot read the file");
  if (static_cast<std::uintmax_t>(in.gcount()) > bytes)
    throw InvalidArgument(path, "holds more than the " + std::to_string(bytes) + " bytes it reports (a file of /proc, or one growing)");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parseJson(text, path);
}

}  // namespace ddl
