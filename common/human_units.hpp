#pragma once
// Numbers for people: SI prefixes on bytes, seconds and rates. The one place a byte count becomes text.

#include <string>

namespace ddl {

std::string formatBytes(double bytes);          // "102.2 MB"
std::string formatSeconds(double seconds);      // "1.234 ms"
std::string formatRate(double bytesPerSecond);  // "12.50 GB/s"

}  // namespace ddl
