#include "algorithms/io/json_reader.hpp"

#include <cmath>
#include <fstream>

namespace ddl {

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
  for (const auto& [key, value] : this->object(object).items()) {
    (void)value;
    if (key == "description" || key == "source" || key == "sources" || key == "confidence" || key == "note") continue;
    bool found = false;
    for (std::string_view name : known) found = found || name == key;
    if (!found) {
      std::string list;
      for (std::string_view name : known) list += (list.empty() ? "" : ", ") + std::string(name);
      at(key).fail("unknown field; expected one of: " + list);
    }
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
    fail(std::to_string(number) + " is outside " + std::to_string(min) + " .. " + std::to_string(max));
  return number;
}

std::int64_t JsonReader::integer(const nlohmann::json& value, std::int64_t min, std::int64_t max) const {
  if (!value.is_number_integer()) fail("expected an integer");
  const auto number = value.get<std::int64_t>();
  if (number < min || number > max)
    fail(std::to_string(number) + " is outside " + std::to_string(min) + " .. " + std::to_string(max));
  return number;
}

nlohmann::json readJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument(path, "cannot read the file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    throw InvalidArgument(path, std::string("not valid JSON: ") + error.what());
  }
}

}  // namespace ddl
