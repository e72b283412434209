// The option table is the one home of every algorithm option: each option an algorithm declares is in it,
// each reads back what it writes (as text, in AlgorithmOptions, in results files), and the registry refuses
// an option to an algorithm that does not take it, whichever option it is.

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "algorithms/collectives/option_table.hpp"
#include "algorithms/io/run_description_json.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

// A value of each type, as a user would give it on the command line.
std::string sampleText(const OptionDeclaration& option) {
  switch (option.type) {
    case OptionType::Grid: return "4x16x4";
    case OptionType::Count: return "4";
    case OptionType::Bytes: return "64K";
    case OptionType::AlgorithmName: return "halving-doubling";
  }
  return "";
}

TEST(OptionTable, EveryOptionAnAlgorithmTakesIsDeclaredOnceUnderUniqueNames) {
  unsigned declared = 0;
  std::set<std::string_view> names;
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    EXPECT_EQ(declared & option.bit, 0u) << option.name << ": a bit declared twice";
    declared |= option.bit;
    EXPECT_TRUE(names.insert(option.name).second) << option.name;
    EXPECT_TRUE(option.key == option.name || names.insert(option.key).second) << option.key;
    EXPECT_FALSE(option.help.empty()) << option.name;
    EXPECT_TRUE(option.get && option.set) << option.name;
    EXPECT_EQ(option.derivedBy.empty(), option.derive == nullptr) << option.name << ": a derivation needs its value and its function";
    if (option.type == OptionType::Count || option.type == OptionType::Bytes) {
      EXPECT_LE(option.minimum, option.maximum) << option.name;
    }
    EXPECT_EQ(findOptionDeclaration(option.name), &option);
    EXPECT_EQ(findOptionDeclaration(option.key), &option);
  }
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    EXPECT_EQ(algorithm->options & ~declared, 0u) << algorithm->name << " takes an option the table does not declare";
}

TEST(OptionTable, EveryOptionReadsBackWhatItWritesAsTextInTheOptionsAndInResults) {
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    const OptionValue value = parseOptionText(option, sampleText(option));
    AlgorithmOptions options;
    EXPECT_FALSE(option.get(options)) << option.name;
    option.set(options, value);
    ASSERT_TRUE(option.get(options)) << option.name;
    EXPECT_EQ(*option.get(options), value) << option.name;
    EXPECT_EQ(parseOptionText(option, formatOptionValue(value)), value) << option.name;
    // Only this option is set, and a results file carries it under its key and no other.
    const nlohmann::json json = algorithmParametersToJson(options);
    EXPECT_EQ(json.size(), 1u) << json.dump();
    EXPECT_TRUE(json.contains(std::string(option.key))) << json.dump();
    const AlgorithmOptions back = algorithmParametersFromJson(JsonReader("test"), json);
    EXPECT_EQ(option.get(back), option.get(options)) << option.name;
  }
}

TEST(OptionTable, BadTextNamesTheOption) {
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    if (option.type == OptionType::AlgorithmName) continue;  // any name is text; the algorithm taking it checks it
    for (const std::string text : {"", "x", "-3", "4x", "99999999999999999999"}) {
      try {
        parseOptionText(option, text);
        ADD_FAILURE() << option.name << " accepted '" << text << "'";
      } catch (const InvalidArgument& error) {
        EXPECT_EQ(error.field(), option.name) << text;
      }
    }
  }
  const OptionDeclaration& ranksPerNode = *findOptionDeclaration("ranks-per-node");
  EXPECT_THROW(parseOptionText(ranksPerNode, std::to_string(ranksPerNode.maximum + 1)), InvalidArgument);
  EXPECT_NO_THROW(parseOptionText(ranksPerNode, std::to_string(ranksPerNode.maximum)));
}

TEST(OptionTable, AnAlgorithmIsRefusedEveryOptionItDoesNotTake) {
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    AlgorithmOptions options;
    option.set(options, parseOptionText(option, sampleText(option)));
    try {
      allreduce("ring", 8, 64, options);
      ADD_FAILURE() << "ring took " << option.name;
    } catch (const InvalidArgument& error) {
      EXPECT_EQ(error.field(), option.name);
      EXPECT_NE(std::string(error.what()).find("ring takes no"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace ddl::testing
