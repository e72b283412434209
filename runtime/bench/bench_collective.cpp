#include "runtime/bench/bench_collective.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/narrow_floats.hpp"

namespace ddl {

extern const BenchCollective kAllreduceBench;
extern const BenchCollective kReduceScatterBench;
extern const BenchCollective kAllGatherBench;

const BenchCollective& benchCollective(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::Allreduce: return kAllreduceBench;
    case CollectiveKind::ReduceScatter: return kReduceScatterBench;
    case CollectiveKind::AllGather: return kAllGatherBench;
  }
  return kAllreduceBench;
}

double patternValue(Elements index, Rank rank, DataType type) {
  if (type == DataType::BFloat16) return static_cast<double>((index + 2 * rank) % 3) - 1;
  return static_cast<double>((index * 7 + rank * 13) % 17) - 8;
}

double patternSum(Elements index, int ranks, DataType type) {
  // The pattern repeats every 17 (3) ranks; sum whole periods at once.
  const int period = type == DataType::BFloat16 ? 3 : 17;
  double periodSum = 0;
  for (Rank r = 0; r < period; ++r) periodSum += patternValue(index, r, type);
  double sum = periodSum * (ranks / period);
  for (Rank r = ranks - ranks % period; r < ranks; ++r) sum += patternValue(index, r, type);
  return sum;
}

int patternPeriod(DataType type) { return type == DataType::BFloat16 ? 3 : 17; }

std::vector<double> patternPhases(Rank rank, DataType type) {
  std::vector<double> phases;
  for (int phase = 0; phase < patternPeriod(type); ++phase) phases.push_back(patternValue(phase, rank, type));
  return phases;
}

std::vector<double> sumPhases(int ranks, DataType type) {
  std::vector<double> phases;
  for (int phase = 0; phase < patternPeriod(type); ++phase) phases.push_back(patternSum(phase, ranks, type));
  return phases;
}

namespace {

// An integer type's value of `v`, rounded toward zero and wrapped into the type (through int64, as a double
// out of an integer's range has no defined conversion): NaN (writeUnset's marker) becomes 0, as an integer
// buffer has no value that reads as unset. The bench refuses integer types (bench_command.cpp); these let
// tests fill and read integer buffers with the same helpers.
template <class Int>
Int integer(double v) {
  return v == v ? static_cast<Int>(static_cast<std::int64_t>(v)) : Int{0};
}

template <class Int>
double real(Int v) {
  return static_cast<double>(v);
}

// Stored is what one element is in memory; encode and decode convert it from and to a double.
template <class Stored, class Encode>
void writeEncoded(Stored* buffer, Range range, const std::vector<double>& phases, Encode encode) {
  std::vector<Stored> period;
  for (const double value : phases) period.push_back(encode(value));
  std::size_t phase = static_cast<std::size_t>(range.offset) % period.size();
  for (Elements i = range.offset; i < range.end(); ++i) {
    buffer[i] = period[phase];
    if (++phase == period.size()) phase = 0;
  }
}

template <class Stored, class Decode>
std::int64_t countDecodedUnlike(const Stored* buffer, Range range, const std::vector<double>& phases, Decode decode) {
  std::int64_t unlike = 0;
  std::size_t phase = static_cast<std::size_t>(range.offset) % phases.size();
  for (Elements i = range.offset; i < range.end(); ++i) {
    unlike += static_cast<double>(decode(buffer[i])) != phases[phase];
    if (++phase == phases.size()) phase = 0;
  }
  return unlike;
}

}  // namespace

void writePeriodic(void* buffer, Range range, const std::vector<double>& phases, DataType type) {
  switch (type) {
    case DataType::Float32:
      return writeEncoded(static_cast<float*>(buffer), range, phases, [](double v) { return static_cast<float>(v); });
    case DataType::Float64: return writeEncoded(static_cast<double*>(buffer), range, phases, [](double v) { return v; });
    case DataType::BFloat16:
      return writeEncoded(static_cast<unsigned short*>(buffer), range, phases,
                          [](double v) { return floatToBfloat16(static_cast<float>(v)); });
    case DataType::Float16:
      return writeEncoded(static_cast<unsigned short*>(buffer), range, phases,
                          [](double v) { return floatToFloat16(static_cast<float>(v)); });
    case DataType::Int8: return writeEncoded(static_cast<std::int8_t*>(buffer), range, phases, integer<std::int8_t>);
    case DataType::UInt8: return writeEncoded(static_cast<std::uint8_t*>(buffer), range, phases, integer<std::uint8_t>);
    case DataType::Int32: return writeEncoded(static_cast<std::int32_t*>(buffer), range, phases, integer<std::int32_t>);
    case DataType::Int64: return writeEncoded(static_cast<std::int64_t*>(buffer), range, phases, integer<std::int64_t>);
  }
}

std::int64_t countUnlike(const void* buffer, Range range, const std::vector<double>& phases, DataType type) {
  switch (type) {
    case DataType::Float32: return countDecodedUnlike(static_cast<const float*>(buffer), range, phases, [](float v) { return v; });
    case DataType::Float64: return countDecodedUnlike(static_cast<const double*>(buffer), range, phases, [](double v) { return v; });
    case DataType::BFloat16: return countDecodedUnlike(static_cast<const unsigned short*>(buffer), range, phases, bfloat16ToFloat);
    case DataType::Float16: return countDecodedUnlike(static_cast<const unsigned short*>(buffer), range, phases, float16ToFloat);
    case DataType::Int8: return countDecodedUnlike(static_cast<const std::int8_t*>(buffer), range, phases, real<std::int8_t>);
    case DataType::UInt8: return countDecodedUnlike(static_cast<const std::uint8_t*>(buffer), range, phases, real<std::uint8_t>);
    case DataType::Int32: return countDecodedUnlike(static_cast<const std::int32_t*>(buffer), range, phases, real<std::int32_t>);
    case DataType::Int64: return countDecodedUnlike(static_cast<const std::int64_t*>(buffer), range, phases, real<std::int64_t>);
  }
  return 0;
}

void writeUnset(void* buffer, Elements count, DataType type) {
  writePeriodic(buffer, {0, count}, {std::nan("")}, type);
}

std::int64_t countChanged(const void* before, const void* after, Elements count, DataType type) {
  const std::size_t size = sizeOf(type);
  const auto* a = static_cast<const char*>(before);
  const auto* b = static_cast<const char*>(after);
  std::int64_t changed = 0;
  for (std::size_t at = 0; at < static_cast<std::size_t>(count) * size; at += size) changed += std::memcmp(a + at, b + at, size) != 0;
  return changed;
}

void writeValue(void* buffer, Elements index, double value, DataType type) {
  switch (type) {
    case DataType::Float32: static_cast<float*>(buffer)[index] = static_cast<float>(value); return;
    case DataType::Float64: static_cast<double*>(buffer)[index] = value; return;
    case DataType::BFloat16: static_cast<unsigned short*>(buffer)[index] = floatToBfloat16(static_cast<float>(value)); return;
    case DataType::Float16: static_cast<unsigned short*>(buffer)[index] = floatToFloat16(static_cast<float>(value)); return;
    case DataType::Int8: static_cast<std::int8_t*>(buffer)[index] = integer<std::int8_t>(value); return;
    case DataType::UInt8: static_cast<std::uint8_t*>(buffer)[index] = integer<std::uint8_t>(value); return;
    case DataType::Int32: static_cast<std::int32_t*>(buffer)[index] = integer<std::int32_t>(value); return;
    case DataType::Int64: static_cast<std::int64_t*>(buffer)[index] = integer<std::int64_t>(value); return;
  }
}

double readValue(const void* buffer, Elements index, DataType type) {
  switch (type) {
    case DataType::Float32: return static_cast<const float*>(buffer)[index];
    case DataType::Float64: return static_cast<const double*>(buffer)[index];
    case DataType::BFloat16: return bfloat16ToFloat(static_cast<const unsigned short*>(buffer)[index]);
    case DataType::Float16: return float16ToFloat(static_cast<const unsigned short*>(buffer)[index]);
    case DataType::Int8: return static_cast<const std::int8_t*>(buffer)[index];
    case DataType::UInt8: return static_cast<const std::uint8_t*>(buffer)[index];
    case DataType::Int32: return static_cast<const std::int32_t*>(buffer)[index];
    case DataType::Int64: return static_cast<double>(static_cast<const std::int64_t*>(buffer)[index]);
  }
  return 0;
}

}  // namespace ddl
