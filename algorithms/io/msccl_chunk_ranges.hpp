#pragma once
// The chunk ranges of an MSCCL XML document (msccl_xml_reader.hpp), what msccl_xml_check.cpp follows.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/io/msccl_xml_reader.hpp"

namespace ddl {

// The chunk offsets where some step's range starts or ends cut the buffer into ranges every step moves
// whole. The run follows ranges, not chunks, so that its work stays proportional to the steps even where
// nchunksperloop runs into millions (a buffer no block count divides).
class ChunkRanges {
 public:
  explicit ChunkRanges(const MscclDocument& document) {
    // No more chunks than steps: a table of every offset finds a range at once. More: the cuts are
    // sorted (deduplicated as they come, since millions of steps share few cuts) and searched.
    const bool table = static_cast<std::size_t>(document.chunks) <= std::max<std::size_t>(document.steps.size(), 4096);
    if (table) rangeAt_.assign(static_cast<std::size_t>(document.chunks) + 1, 0);
    auto cut = [&](std::int32_t offset) {
      if (table) return void(rangeAt_[static_cast<std::size_t>(offset)] = 1);
      cuts_.push_back(offset);
      if (cuts_.size() > 2 * distinct_ + 4096) sortCuts();
    };
    cut(0);
    cut(document.chunks);
    for (const MscclStep& step : document.steps)
      if (step.type() != MscclStepType::Nop) cut(step.offset), cut(step.offset + step.count);
    for (std::int32_t offset = 0; table && offset <= document.chunks; ++offset)
      if (rangeAt_[static_cast<std::size_t>(offset)]) {
        rangeAt_[static_cast<std::size_t>(offset)] = static_cast<std::int32_t>(cuts_.size());
        cuts_.push_back(offset);
      }
    if (!table) sortCuts();
  }

  std::int64_t count() const { return static_cast<std::int64_t>(cuts_.size()) - 1; }
  std::int32_t cut(std::int64_t range) const { return cuts_[static_cast<std::size_t>(range)]; }
  // The range that starts at `offset`, a cut.
  std::int64_t at(std::int32_t offset) const {
    if (!rangeAt_.empty()) return rangeAt_[static_cast<std::size_t>(offset)];
    return std::lower_bound(cuts_.begin(), cuts_.end(), offset) - cuts_.begin();
  }

 private:
  void sortCuts() {
    std::sort(cuts_.begin(), cuts_.end());
    cuts_.erase(std::unique(cuts_.begin(), cuts_.end()), cuts_.end());
    distinct_ = cuts_.size();
  }

  std::vector<std::int32_t> cuts_, rangeAt_;
  std::size_t distinct_ = 0;
};

}  // namespace ddl
