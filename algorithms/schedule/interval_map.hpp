#pragma once
// A value per element of a buffer, stored as runs of equal values: the per-rank access state the
// program builder and the race check keep. Nodes come from a bump allocator owned by the map: a map lives
// for one program's construction, and freeing node by node was a third of the builder's time.

#include <iterator>
#include <map>
#include <memory_resource>

#include "algorithms/schedule/range.hpp"

namespace ddl {

template <class Value>
class IntervalMap {
 public:
  IntervalMap(Elements size, Value initial) : size_(size), runs_(&memory_) { runs_.emplace(0, std::move(initial)); }
  IntervalMap(const IntervalMap&) = delete;
  IntervalMap& operator=(const IntervalMap&) = delete;

  Elements size() const { return size_; }

  // Calls fn(Range, Value&) for the runs covering `range`, first splitting runs at its two ends so that
  // `fn` may change exactly the range.
  template <class Fn>
  void update(Range range, Fn&& fn) {
    if (range.count == 0) return;
    auto it = splitAt(range.offset);
    splitAt(range.end());
    for (; it != runs_.end() && it->first < range.end(); ++it) fn(Range{it->first, runEnd(it) - it->first}, it->second);
  }

  std::size_t runCount() const { return runs_.size(); }

 private:
  using Runs = std::pmr::map<Elements, Value>;

  Elements runEnd(typename Runs::const_iterator it) const {
    auto next = std::next(it);
    return next == runs_.end() ? size_ : next->first;
  }

  typename Runs::iterator splitAt(Elements at) {
    if (at >= size_) return runs_.end();
    auto it = std::prev(runs_.upper_bound(at));
    if (it->first == at) return it;
    return runs_.emplace_hint(std::next(it), at, it->second);
  }

  Elements size_;
  std::pmr::monotonic_buffer_resource memory_;
  Runs runs_;
};

}  // namespace ddl
