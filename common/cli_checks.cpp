#include "common/cli_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/build_info.hpp"
#include "common/input_file.hpp"
#include "common/nearest_name.hpp"
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

void requireDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  // The file each path names, "a/../b.png" and "./b.png" alike; a path that cannot be resolved stays as given.
  auto fileOf = [](const std::string& path) {
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
    return error ? std::filesystem::path(path) : resolved;
  };
  for (std::size_t later = 0; later < outputs.size(); ++later) {
    if (outputs[later].second.empty()) continue;
    checkOutputFile(outputs[later].second, outputs[later].first);  // not onto an input read so far
    for (std::size_t earlier = 0; earlier < later; ++earlier)
      if (!outputs[earlier].second.empty() && fileOf(outputs[earlier].second) == fileOf(outputs[later].second))
        throw InvalidArgument(outputs[later].first, "'" + outputs[later].second + "' is the file " + outputs[earlier].first +
                                                        " writes: give each output a file of its own");
  }
}

CLI::Validator writableFile() {
  return fromCheck("FILE", [](const std::string& path) { checkOutputFile(path, "file"); });
}

}  // namespace ddl

namespace ddl {
namespace {

// Every name an option of `command` answers to: "--algorithm", "-b".
std::vector<std::string> optionNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// A value that begins with '-': -1, -2.5e3.
bool isNumber(const std::string& word) {
  char* end = nullptr;
  std::strtod(word.c_str(), &end);
  return end != word.c_str() && *end == '\0';
}

const CLI::App* subcommandNamed(const CLI::App& command, const std::string& word) {
  const auto named = command.get_subcommands([&](const CLI::App* sub) { return sub->check_name(word); });
  return named.empty() ? nullptr : named.front();
}

std::vector<std::string> subcommandNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::string nearestOf(const std::string& word, const std::vector<std::string>& names) {
  const std::vector<std::string_view> known(names.begin(), names.end());
  return didYouMean(word, known);
}

}  // namespace

void requireKnownNames(const CLI::App& app, int argc, const char* const* argv, bool firstWordMayBeFile) {
  std::vector<const CLI::App*> commands{&app};  // the command line's way down: the program, its subcommands
  std::vector<std::string> path{argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "the program"};
  bool firstWord = true;  // the word right after the program or a subcommand, where a subcommand's name goes
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return;  // what follows is positional, whatever it looks like
    const bool wasFirst = firstWord;
    firstWord = false;
    if (word.size() < 2 || word[0] != '-' || isNumber(word)) {
      if (const CLI::App* sub = subcommandNamed(*commands.back(), word)) {
        commands.push_back(sub);
        path.push_back(sub->get_name());
        firstWord = true;
        continue;
      }
      const std::vector<std::string> subs = subcommandNames(*commands.back());
      const bool mayBeFile = firstWordMayBeFile && commands.size() == 1;
      if (!wasFirst || subs.empty() || (mayBeFile && std::filesystem::exists(word))) continue;
      const std::string hint = nearestOf(word, subs);
      if (hint.empty() && mayBeFile) continue;  // a file's name, which the command says is missing
      std::string list;
      for (std::size_t s = 0; s < subs.size(); ++s) list += (s ? ", " : "") + subs[s];
      throw InvalidArgument(word, std::string("no such subcommand") + (mayBeFile ? " or file" : "") + " of " + path.back() +
                                      hint + "; the subcommands are " + list);
    }
    // "--name=value", and a short option's value written on to it ("-n5").
    std::string name = word.substr(0, word.find('='));
    if (name[1] != '-') name = name.substr(0, 2);
    std::vector<std::string> known;
    for (const CLI::App* command : commands) {
      const std::vector<std::string> names = optionNames(*command);
      known.insert(known.end(), names.begin(), names.end());
    }
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string where;
    for (const std::string& part : path) where += (where.empty() ? "" : " ") + part;
    throw InvalidArgument(name, "no such option of " + where + nearestOf(name, known) + " (see " + where + " --help)");
  }
}

void addVersionFlag(CLI::App& app, const std::string& program) {
  app.set_version_flag("--version", program + " " + std::string(ddlscaleVersion()) + " (commit " + std::string(ddlscaleCommit()) + ")");
}

}  // namespace ddl
