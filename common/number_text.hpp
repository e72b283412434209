#pragma once
// A number as messages show it: six significant digits at most, "1e+300" rather than 301 digits.

#include <cstdio>
#include <string>

namespace ddl {

inline std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace ddl
