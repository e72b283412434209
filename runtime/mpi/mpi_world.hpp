#pragma once
// The ranks of an MPI job as a World.

#include <mpi.h>

#include "runtime/world.hpp"

namespace ddl {

class MpiWorld final : public World {
 public:
  explicit MpiWorld(MPI_Comm communicator) : communicator_(communicator) {
    MPI_Comm_rank(communicator_, &rank_);
    MPI_Comm_size(communicator_, &size_);
  }
  Rank rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override { MPI_Barrier(communicator_); }
  double maxOverRanks(double value) override {
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, communicator_);
    return value;
  }
  std::int64_t sumOverRanks(std::int64_t value) override {
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, communicator_);
    return value;
  }

 private:
  MPI_Comm communicator_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace ddl
