#include "common/cli_checks.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "common/input_file.hpp"
#include "common/number_text.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// The check's message: InvalidArgument's without the field, which CLI11 prefixes with the option's name.
template <class Check>
CLI::Validator fromCheck(const std::string& description, Check check) {
  return CLI::Validator(
      [check](std::string& value) -> std::string {
        try {
          check(value);
          return "";
        } catch (const InvalidArgument& error) {
          const std::string message = error.what();
          return message.substr(std::min(message.size(), error.field().size() + 2));
        }
      },
      description);
}

}  // namespace

CLI::Validator finiteIn(double min, double max) {
  const std::string range = shortNumber(min) + " .. " + shortNumber(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
        if (!std::isfinite(value) || value < min || value > max) return text + " is outside " + range;
        return "";
      },
      "NUMBER in " + range);
}

CLI::Validator utf8Text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          (void)nlohmann::json(text).dump();  // the writer's own check
          return "";
        } catch (const nlohmann::json::exception&) {
          return "is not UTF-8 text";
        }
      },
      "TEXT");
}

CLI::Validator readableFile() {
  return fromCheck("FILE", [](const std::string& path) { checkInputFile(path, "file"); });
}

CLI::Validator writableFile() {
  return fromCheck("FILE", [](const std::string& path) { checkOutputFile(path, "file"); });
}

}  // namespace ddl
