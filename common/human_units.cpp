#include "common/human_units.hpp"

#include <cmath>
#include <cstdio>

namespace ddl {
namespace {

std::string withPrefix(double value, const char* unit, int decimals) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int prefix = 0;
  while (std::fabs(value) >= 1000 && prefix < 5) {
    value /= 1000;
    ++prefix;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s%s", prefix == 0 ? 0 : decimals, value, kPrefixes[prefix], unit);
  return text;
}

}  // namespace

std::string formatBytes(double bytes) { return withPrefix(bytes, "B", 1); }

std::string formatRate(double bytesPerSecond) { return withPrefix(bytesPerSecond, "B/s", 2); }

std::string formatSeconds(double seconds) {
  char text[64];
  const double magnitude = std::fabs(seconds);
  if (magnitude == 0) return "0 s";
  if (magnitude >= 1) std::snprintf(text, sizeof text, "%.3f s", seconds);
  else if (magnitude >= 1e-3) std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  else if (magnitude >= 1e-6) std::snprintf(text, sizeof text, "%.3f us", seconds * 1e6);
  else std::snprintf(text, sizeof text, "%.1f ns", seconds * 1e9);
  return text;
}

}  // namespace ddl
