#pragma once
// The algorithm definitions, one per file in this folder.

#include "algorithms/collectives/algorithm.hpp"

namespace ddl {

extern const AlgorithmDefinition kRingAllreduce;
extern const AlgorithmDefinition kNcclRingAllreduce;
extern const AlgorithmDefinition kNcclTreeAllreduce;
extern const AlgorithmDefinition kNcclNvlsAllreduce;
extern const AlgorithmDefinition kNcclNvlsTreeAllreduce;
extern const AlgorithmDefinition kDdlAllreduce;
extern const AlgorithmDefinition kHalvingDoublingAllreduce;
extern const AlgorithmDefinition kRecursiveDoublingAllreduce;
extern const AlgorithmDefinition kBinomialTreeAllreduce;
extern const AlgorithmDefinition kDoubleBinaryTreeAllreduce;
extern const AlgorithmDefinition kTorus2dAllreduce;
extern const AlgorithmDefinition kHierarchicalAllreduce;
extern const AlgorithmDefinition kRingReduceScatter;
extern const AlgorithmDefinition kRingAllGather;
extern const AlgorithmDefinition kNcclRingReduceScatter;
extern const AlgorithmDefinition kNcclRingAllGather;

}  // namespace ddl
