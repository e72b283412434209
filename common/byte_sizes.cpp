#include "common/byte_sizes.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/limits.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

std::int64_t parseByteSize(const std::string& text, const std::string& field) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [rest, error] = std::from_chars(text.data(), end, value);
  std::int64_t unit = 1;
  if (rest != end && rest + 1 == end) {
    switch (std::toupper(static_cast<unsigned char>(*rest))) {
      case 'K': unit = 1LL << 10; ++rest; break;
      case 'M': unit = 1LL << 20; ++rest; break;
      case 'G': unit = 1LL << 30; ++rest; break;
      default: break;
    }
  }
  if (error == std::errc::result_out_of_range || (error == std::errc() && rest == end && value > kMaxBufferBytes / unit))
    throw InvalidArgument(field, "'" + text + "' is more than the largest buffer, " + std::to_string(kMaxBufferBytes) +
                                     " bytes (1 PiB)");
  if (error != std::errc() || rest != end || value < 0)
    throw InvalidArgument(field, "'" + text + "' is not a byte size like 4096, 64K, 256M or 1G");
  return value * unit;
}

std::vector<std::int64_t> sweepByteSizes(std::int64_t minBytes, std::int64_t maxBytes, double factor, int elementBytes) {
  if (minBytes > maxBytes) throw InvalidArgument("--min-bytes", "is larger than --max-bytes");
  if (minBytes == maxBytes) return {minBytes / elementBytes * elementBytes};
  if (!std::isfinite(factor) || factor <= 1) throw InvalidArgument("--factor", "must be a number greater than 1");
  if (minBytes == 0)
    throw InvalidArgument("--min-bytes", "a sweep from 0 bytes never grows by --factor: start at 1 byte or more");
  const double sizes = std::floor(std::log(static_cast<double>(maxBytes) / static_cast<double>(minBytes)) / std::log(factor)) + 1;
  if (sizes > kMaxSweepSizes) {
    char text[160];
    std::snprintf(text, sizeof text, "%g from %lld to %lld bytes is %.0f sizes; at most %d", factor,
                  static_cast<long long>(minBytes), static_cast<long long>(maxBytes), sizes, kMaxSweepSizes);
    throw InvalidArgument("--factor", text);
  }
  std::vector<std::int64_t> result;
  for (double bytes = static_cast<double>(minBytes); bytes <= static_cast<double>(maxBytes) * (1 + 1e-9); bytes *= factor) {
    // The slack that lets rounding reach -e exactly must not carry a size past it.
    const std::int64_t rounded = std::min(static_cast<std::int64_t>(bytes), maxBytes) / elementBytes * elementBytes;
    if (result.empty() || rounded != result.back()) result.push_back(rounded);
  }
  return result;
}

std::vector<std::int64_t> linearByteSizes(std::int64_t minBytes, std::int64_t maxBytes, std::int64_t stepBytes, int elementBytes) {
  if (minBytes > maxBytes) throw InvalidArgument("--min-bytes", "is larger than --max-bytes");
  if (stepBytes <= 0) throw InvalidArgument("--step-bytes", "must be 1 byte or more");
  if ((maxBytes - minBytes) / stepBytes + 1 > kMaxSweepSizes)
    throw InvalidArgument("--step-bytes", std::to_string(stepBytes) + " from " + std::to_string(minBytes) + " to " +
                                              std::to_string(maxBytes) + " bytes is more than " + std::to_string(kMaxSweepSizes) +
                                              " sizes");
  std::vector<std::int64_t> result;
  for (std::int64_t bytes = minBytes; bytes <= maxBytes; bytes += stepBytes) {
    const std::int64_t rounded = bytes / elementBytes * elementBytes;
    if (result.empty() || rounded != result.back()) result.push_back(rounded);
  }
  return result;
}

}  // namespace ddl
