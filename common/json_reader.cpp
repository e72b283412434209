#include "common/json_reader.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/input_file.hpp"
#include "common/machine_memory.hpp"
#include "common/nearest_name.hpp"
#include "common/number_text.hpp"

namespace ddl {
namespace {

// Builds the document from nlohmann's SAX events, refusing a field given twice and nesting deeper than
// kMaxJsonDepth as it goes, with the JSON path of where it is. nlohmann's own parser with a callback does
// the same checks but, after every object, searches the whole enclosing array for discarded values: a
// schedule file of 200,000 ranks took 13 s, 2,000,000 more than 300 s. This takes time linear in the text.
class DocumentBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit DocumentBuilder(const std::string& source) : source_(source) {}
  nlohmann::json take() { return std::move(root_); }

  bool null() override { return add(nullptr); }
  bool boolean(bool value) override { return add(value); }
  bool number_integer(number_integer_t value) override { return add(value); }
  bool number_unsigned(number_unsigned_t value) override { return add(value); }
  bool number_float(number_float_t value, const string_t&) override { return add(value); }
  bool string(string_t& value) override { return add(std::move(value)); }
  bool binary(binary_t& value) override { return add(nlohmann::json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(nlohmann::json::object(), false); }
  bool start_array(std::size_t) override { return open(nlohmann::json::array(), true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    Frame& frame = open_.back();
    if (frame.container->contains(key))
      throw InvalidArgument(source_ + ": " + path(open_.size() - 1), "the field '" + key + "' is given twice");
    frame.key = std::move(key);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override { throw error; }

 private:
  struct Frame {
    nlohmann::json* container;
    bool array;
    std::size_t elements = 0;  // of an array, so far
    std::string key;           // of an object, the member being read
  };

  // Places `value` where the parser is, returning where it went.
  nlohmann::json* place(nlohmann::json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& frame = open_.back();
    if (frame.array) {
      ++frame.elements;
      frame.container->push_back(std::move(value));
      return &frame.container->back();
    }
    return &(*frame.container->emplace(frame.key, std::move(value)).first);
  }
  bool add(nlohmann::json&& value) {
    place(std::move(value));
    return true;
  }
  bool open(nlohmann::json&& empty, bool array) {
    nlohmann::json* container = place(std::move(empty));
    if (open_.size() >= static_cast<std::size_t>(kMaxJsonDepth))
      throw InvalidArgument(source_ + ": " + path(open_.size()), "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    open_.push_back({container, array, 0, {}});
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }
  // "$.programs[3].steps": the path through the first `frames` open containers to the value in the last.
  std::string path(std::size_t frames) const {
    std::string path = "$";
    for (std::size_t i = 0; i < frames; ++i) {
      const Frame& frame = open_[i];
      path += frame.array ? "[" + std::to_string(frame.elements - 1) + "]" : "." + frame.key;
    }
    return path;
  }

  const std::string& source_;
  nlohmann::json root_;
  std::vector<Frame> open_;
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
  DocumentBuilder builder(source);
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    return builder.take();
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
