#pragma once
// The ranks of an MPI job as a World. With a SilenceWatchdog, each of its collectives is watched: a rank
// that never joins one ends the job, named, instead of hanging it.

#include <mpi.h>

#include <string>
#include <vector>

#include "runtime/mpi/silence_watchdog.hpp"
#include "runtime/world.hpp"

namespace ddl {

class MpiWorld final : public World {
 public:
  explicit MpiWorld(MPI_Comm communicator, SilenceWatchdog* watchdog = nullptr)
      : communicator_(communicator), watchdog_(watchdog) {
    MPI_Comm_rank(communicator_, &rank_);
    MPI_Comm_size(communicator_, &size_);
  }
  Rank rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override {
    watched("a barrier", [&] { MPI_Barrier(communicator_); });
  }
  double maxOverRanks(double value) override {
    watched("an allreduce of the ranks' figures (max)",
            [&] { MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, communicator_); });
    return value;
  }
  double meanOverRanks(double value) override {
    watched("an allreduce of the ranks' figures (sum)",
            [&] { MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, communicator_); });
    return value / size_;
  }
  std::int64_t sumOverRanks(std::int64_t value) override {
    watched("an allreduce of the ranks' figures (sum)",
            [&] { MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, communicator_); });
    return value;
  }
  std::vector<std::string> gatherText(const std::string& mine) override {
    const bool root = rank_ == 0;
    std::vector<int> lengths(root ? static_cast<std::size_t>(size_) : 0);
    int length = static_cast<int>(mine.size());
    watched("a gather of the ranks' texts (lengths)",
            [&] { MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, communicator_); });
    std::vector<int> offsets(lengths.size(), 0);
    for (std::size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    std::string all(root ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, '\0');
    watched("a gather of the ranks' texts", [&] {
      MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, communicator_);
    });
    std::vector<std::string> texts;
    for (std::size_t r = 0; r < lengths.size(); ++r)
      texts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return texts;
  }

 private:
  template <class Call>
  void watched(const char* what, Call&& call) {
    if (!watchdog_) return call();
    auto wait = watchdog_->waitingIn(what);
    call();
  }

  MPI_Comm communicator_;
  SilenceWatchdog* watchdog_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace ddl
