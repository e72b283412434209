#pragma once
// The ranks of a job as its harnesses see them: who takes part, and how they line up and agree on their
// figures. The ranks of an MPI job (one process each) or the threads of one process, one per rank (the
// CUDA peer transport drives every GPU from one process); nccl-tests has the same two kinds of job.

#include <cstdint>
#include <string>
#include <vector>

#include "common/rank.hpp"

namespace ddl {

class World {
 public:
  virtual ~World() = default;
  virtual Rank rank() const = 0;
  virtual int size() const = 0;
  virtual void barrier() = 0;
  // Every rank calls these with its own value and gets the same result.
  virtual double maxOverRanks(double value) = 0;
  virtual double meanOverRanks(double value) = 0;
  virtual std::int64_t sumOverRanks(std::int64_t value) = 0;
  // Every rank calls it with a text about itself (its host, its device, its timeline); rank 0 gets every
  // rank's, in rank order, and the others nothing: what is gathered is written by rank 0, and an all-gather
  // would hold P copies of it (in one process, P^2 texts).
  virtual std::vector<std::string> gatherText(const std::string& mine) = 0;
};

}  // namespace ddl
