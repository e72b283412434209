#include "algorithms/io/byte_sizes.hpp"

#include <cctype>
#include <charconv>

#include "algorithms/schedule/invalid_argument.hpp"

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
  if (error != std::errc() || rest != end || value < 0 || value > (1LL << 50) / unit)
    throw InvalidArgument(field, "'" + text + "' is not a byte size like 4096, 64K, 256M or 1G");
  return value * unit;
}

}  // namespace ddl
