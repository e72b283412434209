#pragma once
// A short list kept inside its owner's record, spilling to the heap only beyond N items. An activity's
// resources are read each time it starts, joins the sharing, is solved or leaves: in a separate allocation
// each of those was one more cache miss, and at thousands of ranks the simulation is bound by such misses.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace ddl::fluid {

template <class T, std::size_t N>
class InlineList {
 public:
  // `size` items, their values unspecified until written through items().
  void resize(std::size_t size) {
    size_ = static_cast<std::uint32_t>(size);
    if (size > N) spilled_.resize(size);
  }
  void assign(std::span<const T> items) {
    resize(items.size());
    std::copy(items.begin(), items.end(), this->items().begin());
  }
  std::span<T> items() { return size_ <= N ? std::span<T>(inline_.data(), size_) : std::span<T>(spilled_); }
  std::span<const T> items() const { return const_cast<InlineList*>(this)->items(); }
  bool empty() const { return size_ == 0; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> spilled_;
  std::uint32_t size_ = 0;
};

}  // namespace ddl::fluid
