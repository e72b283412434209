#pragma once
// Byte sizes as people type them, in the manner of nccl-tests: 512, 64K, 256M, 1G (powers of 1024), and
// the sweep of sizes that ddlrun bench measures and ddlsim collective predicts (-b, -e, -f).

#include <cstdint>
#include <string>
#include <vector>

namespace ddl {

// Throws InvalidArgument(field, ...) on anything else, a negative size, or one above kMaxBufferBytes.
std::int64_t parseByteSize(const std::string& text, const std::string& field);

// A sweep has at most this many sizes: enough for any factor a user means, and a bound on the work.
constexpr int kMaxSweepSizes = 10000;

// The sizes from minBytes to maxBytes, each `factor` times the one before, rounded down to whole elements
// of elementBytes, repeats dropped. Both tools call this one function, so that ddlcompare can join their
// rows size by size. Throws InvalidArgument naming --min-bytes or --factor for a sweep that would never
// end or would have more than kMaxSweepSizes sizes.
std::vector<std::int64_t> sweepByteSizes(std::int64_t minBytes, std::int64_t maxBytes, double factor, int elementBytes);
// The same with a step of `stepBytes` instead of a factor (nccl-tests' -i); InvalidArgument naming
// --step-bytes for a step of 0 or more than kMaxSweepSizes sizes.
std::vector<std::int64_t> linearByteSizes(std::int64_t minBytes, std::int64_t maxBytes, std::int64_t stepBytes, int elementBytes);

}  // namespace ddl
