#pragma once
// Suggestions for misspelt names, as git and CLI11 make them: "unknown field 'afer'; did you mean 'after'?"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ddl {

// The name in `known` nearest to `word` by edit distance (insertions, deletions, substitutions and
// transpositions of neighbours), if it is near enough to be a slip: at most a third of the word's length,
// and at least 1. Ties go to the first in `known`.
std::optional<std::string> nearestName(std::string_view word, std::span<const std::string_view> known);

// " (did you mean 'after'?)" or "" where no known name is near.
std::string didYouMean(std::string_view word, std::span<const std::string_view> known);

// "a, b or c"
std::string listOfNames(std::span<const std::string_view> names);

}  // namespace ddl
