#include "common/nearest_name.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ddl {
namespace {

char folded(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance, case-insensitive: a transposed pair of neighbours costs one edit.
std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = folded(a[i - 1]) == folded(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) && folded(a[i - 2]) == folded(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> nearestName(std::string_view word, std::span<const std::string_view> known) {
  // Names typed by people are short; a long word (a whole file pasted into a field) is no slip.
  if (word.size() > 64) return std::nullopt;
  const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t bestDistance = allowed + 1;
  for (std::string_view name : known) {
    const std::size_t distance = editDistance(word, name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = std::string(name);
    }
  }
  return best;
}

std::string didYouMean(std::string_view word, std::span<const std::string_view> known) {
  const auto nearest = nearestName(word, known);
  return nearest ? " (did you mean '" + *nearest + "'?)" : "";
}

std::string listOfNames(std::span<const std::string_view> names) {
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return list;
}

}  // namespace ddl
