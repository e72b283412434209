#pragma once
// How a reduction combines two ranks' elements. An average is not an operator of the steps: it is a sum,
// divided by the ranks once at the end (as NCCL's ncclAvg and PyTorch's ReduceOp.AVG are).

#include <cstdint>
#include <string_view>

namespace ddl {

enum class ReduceOp : std::int32_t { Sum, Product, Min, Max };

// "sum", "prod", "min", "max": nccl-tests' -o names.
inline std::string_view toString(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Product: return "prod";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  return "sum";
}

// What a caller of a collective asks for: one of the operators, or an average (a sum whose result is divided
// by the ranks at the end). The values are the C API's ddl_op's.
enum class Reduction : std::int32_t { Sum, Product, Min, Max, Average };

// The operator each step of a reduction applies.
inline ReduceOp stepOperator(Reduction reduction) {
  return reduction == Reduction::Average ? ReduceOp::Sum : static_cast<ReduceOp>(reduction);
}

}  // namespace ddl
