#include "runtime/bench/bench_collective.hpp"

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

void writeValue(void* buffer, Elements index, double value, DataType type) {
  switch (type) {
    case DataType::Float32: static_cast<float*>(buffer)[index] = static_cast<float>(value); return;
    case DataType::Float64: static_cast<double*>(buffer)[index] = value; return;
    case DataType::BFloat16: static_cast<unsigned short*>(buffer)[index] = floatToBfloat16(static_cast<float>(value)); return;
    case DataType::Float16: static_cast<unsigned short*>(buffer)[index] = floatToFloat16(static_cast<float>(value)); return;
  }
}

double readValue(const void* buffer, Elements index, DataType type) {
  switch (type) {
    case DataType::Float32: return static_cast<const float*>(buffer)[index];
    case DataType::Float64: return static_cast<const double*>(buffer)[index];
    case DataType::BFloat16: return bfloat16ToFloat(static_cast<const unsigned short*>(buffer)[index]);
    case DataType::Float16: return float16ToFloat(static_cast<const unsigned short*>(buffer)[index]);
  }
  return 0;
}

}  // namespace ddl
