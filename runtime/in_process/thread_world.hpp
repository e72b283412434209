#pragma once
// The threads of one process, one per rank, as a World.

#include <algorithm>
#include <barrier>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/world.hpp"

namespace ddl {

// What the threads share; each thread holds a ThreadWorld view of it.
class ThreadGroup {
 public:
  explicit ThreadGroup(int ranks)
      : ranks_(ranks),
        barrier_(ranks),
        doubles_(static_cast<std::size_t>(ranks)),
        integers_(static_cast<std::size_t>(ranks)),
        texts_(static_cast<std::size_t>(ranks)) {}
  int size() const { return ranks_; }

 private:
  friend class ThreadWorld;
  int ranks_;
  std::barrier<> barrier_;
  std::vector<double> doubles_;
  std::vector<std::int64_t> integers_;
  std::vector<std::string> texts_;
};

class ThreadWorld final : public World {
 public:
  ThreadWorld(ThreadGroup& group, Rank rank) : group_(group), rank_(rank) {}
  Rank rank() const override { return rank_; }
  int size() const override { return group_.ranks_; }
  void barrier() override { group_.barrier_.arrive_and_wait(); }
  double maxOverRanks(double value) override {
    return gather(group_.doubles_, value, [](const std::vector<double>& all) { return *std::max_element(all.begin(), all.end()); });
  }
  double meanOverRanks(double value) override {
    return gather(group_.doubles_, value, [](const std::vector<double>& all) {
      double sum = 0;
      for (double v : all) sum += v;
      return sum / static_cast<double>(all.size());
    });
  }
  std::int64_t sumOverRanks(std::int64_t value) override {
    return gather(group_.integers_, value, [](const std::vector<std::int64_t>& all) {
      std::int64_t sum = 0;
      for (std::int64_t v : all) sum += v;
      return sum;
    });
  }
  std::vector<std::string> gatherText(const std::string& mine) override {
    const bool root = rank_ == 0;
    return gather(group_.texts_, mine, [root](const std::vector<std::string>& all) {
      return root ? all : std::vector<std::string>{};
    });
  }

 private:
  template <class T, class Combine>
  std::invoke_result_t<Combine, const std::vector<T>&> gather(std::vector<T>& slots, T value, Combine combine) {
    slots[static_cast<std::size_t>(rank_)] = std::move(value);
    barrier();
    const auto result = combine(slots);
    barrier();  // nobody overwrites a slot before every rank has read them all
    return result;
  }

  ThreadGroup& group_;
  Rank rank_;
};

}  // namespace ddl
