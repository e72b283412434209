#pragma once
// Slots of a vector reused once freed, so that indices handed out stay small and stable: the activities,
// timers and messages of a simulation come and go by the million.

#include <vector>

namespace ddl::fluid {

// The index of a slot of `items` to fill: the last one `freed` holds, or a new one at the end.
template <class Index, class Item>
Index takeSlot(std::vector<Item>& items, std::vector<Index>& freed) {
  if (freed.empty()) {
    items.emplace_back();
    return static_cast<Index>(items.size() - 1);
  }
  const Index slot = freed.back();
  freed.pop_back();
  return slot;
}

}  // namespace ddl::fluid
