#pragma once
// Element ranges of a collective's buffer and the balanced block partition every algorithm uses.

#include <cstdint>
#include <string>

#include "common/rank.hpp"

namespace ddl {

using Elements = std::int64_t;

// A half-open range [offset, offset + count) of buffer elements.
struct Range {
  Elements offset = 0;
  Elements count = 0;

  Elements end() const { return offset + count; }
  bool empty() const { return count == 0; }
  bool overlaps(const Range& other) const {
    return offset < other.end() && other.offset < end() && count > 0 && other.count > 0;
  }
  friend bool operator==(const Range&, const Range&) = default;
};

// Block `index` of `parts` balanced blocks of `whole`: the first `whole.count % parts` blocks hold one
// element more than the rest, so block sizes never differ by more than one (MPI_Reduce_scatter_block
// convention, extended to counts that do not divide evenly).
inline Range blockOf(Range whole, int parts, int index) {
  const Elements base = whole.count / parts;
  const Elements extra = whole.count % parts;
  const Elements begin = index * base + (index < extra ? index : extra);
  return {whole.offset + begin, base + (index < extra ? 1 : 0)};
}

// Size of the largest of `parts` balanced blocks of `count` elements: ceil(count / parts).
inline Elements largestBlock(Elements count, int parts) { return (count + parts - 1) / parts; }

inline std::string toString(Range range) {
  return "[" + std::to_string(range.offset) + ", " + std::to_string(range.end()) + ")";
}

}  // namespace ddl
