// parseJson: the document, or an error naming the file and the JSON path, in time linear in the text.

#include <algorithm>
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"

namespace ddl::testing {
namespace {

// The field and message of the InvalidArgument parsing `text` throws; empty if it throws none.
std::pair<std::string, std::string> failureOf(const std::string& text) {
  try {
    parseJson(text, "f.json");
  } catch (const InvalidArgument& error) {
    return {error.field(), error.what()};
  }
  return {};
}

// Nested arrays `depth` deep: "[[[]]]" is 3.
std::string nested(int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); }

// `ranks` programs as a schedule file lists them: an array of small objects, each of a few fields.
std::string programs(int ranks) {
  std::string text = R"({"ranks": )" + std::to_string(ranks) + R"(, "programs": [)";
  for (int rank = 0; rank < ranks; ++rank)
    text += (rank ? "," : "") + std::string(R"({"rank": )") + std::to_string(rank) + R"(, "steps": [{"op": "send", "peer": 1}]})";
  return text + "]}";
}

TEST(ParseJson, GivesTheDocumentAsNlohmannParsesIt) {
  const std::string text = R"({"a": [1, -2, 3.5, "x", true, null, {"b": {}}, []], "c": {"d": 18446744073709551615}})";
  EXPECT_EQ(parseJson(text, "f.json"), nlohmann::json::parse(text));
  EXPECT_EQ(parseJson(programs(3), "f.json"), nlohmann::json::parse(programs(3)));
  EXPECT_EQ(parseJson("7", "f.json"), 7);
}

TEST(ParseJson, AFieldGivenTwiceIsNamedWithThePathOfItsObject) {
  EXPECT_EQ(failureOf(R"({"a": 1, "a": 2})").first, "f.json: $");
  const auto [field, message] = failureOf(R"({"x": [0, {"k": 1, "m": {"n": 1, "n": 2}}]})");
  EXPECT_EQ(field, "f.json: $.x[1].m");
  EXPECT_NE(message.find("the field 'n' is given twice"), std::string::npos) << message;
  // The same key in different objects is no repeat.
  EXPECT_EQ(failureOf(R"([{"a": 1}, {"a": 2}, {"b": {"a": 3}}])").first, "");
}

TEST(ParseJson, NestingBeyondTheLimitIsRefusedWithItsPath) {
  EXPECT_EQ(failureOf(nested(kMaxJsonDepth)).first, "");
  const auto [field, message] = failureOf(nested(kMaxJsonDepth + 1));
  std::string innermost = "f.json: $";  // the array that opens one level too deep: the first element of each
  for (int level = 0; level < kMaxJsonDepth; ++level) innermost += "[0]";
  EXPECT_EQ(field, innermost);
  EXPECT_NE(message.find("nested more than 64 levels deep"), std::string::npos) << message;
  EXPECT_NE(failureOf(R"({"a": )" + nested(kMaxJsonDepth) + "}").first, "");
}

TEST(ParseJson, TextThatIsNotJsonNamesTheFileAndWhere) {
  for (const std::string text : {"", "{", R"({"a": })", "[1,]", "1e999", R"({"a": 1} x)"}) {
    const auto [field, message] = failureOf(text);
    EXPECT_EQ(field, "f.json") << text;
    EXPECT_NE(message.find("not valid JSON"), std::string::npos) << text << ": " << message;
  }
}

// A parse whose time grows with the square of the elements (nlohmann's callback parser searched the whole
// enclosing array after every object) takes up to 1024 times as long for 32 times the text, a linear one 32
// times (measured here: the quadratic parse 380 times, this one 32 to 45). The least of three runs of each,
// so that a pause of this machine does not decide it.
TEST(ParseJson, TakesTimeLinearInTheText) {
#if defined(__SANITIZE_ADDRESS__)
  // A property of the parse, not of its memory safety: the optimised pass checks it, and under the sanitizers
  // it would time their instrumentation for 13 s of a CI run that has 45 minutes.
  GTEST_SKIP() << "timed in the optimised build only";
#endif
  auto leastSeconds = [](const std::string& text) {
    double least = 1e9;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      const nlohmann::json document = parseJson(text, "f.json");
      least = std::min(least, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      EXPECT_TRUE(document.contains("programs"));
    }
    return least;
  };
  const double small = leastSeconds(programs(10'000));
  const double large = leastSeconds(programs(320'000));
  EXPECT_LT(large / small, 128) << small << " s for 10,000 programs, " << large << " s for 320,000";
}

}  // namespace
}  // namespace ddl::testing
