#pragma once
// What became of each rank's actors, so that a simulation that stops early says which ranks and why
// instead of hanging or aborting: exceptions are caught inside the actors and kept here.

#include <string>
#include <vector>

#include "common/rank.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/engine/stuck_ranks.hpp"

namespace ddl {

class ActorOutcomes {
 public:
  explicit ActorOutcomes(int ranks) : finished_(static_cast<std::size_t>(ranks), false) {}

  // Runs `body` for `rank`, recording its end or its failure; never lets an exception into SimGrid.
  template <class Body>
  void run(Rank rank, Body&& body) {
    try {
      body();
      finished_[static_cast<std::size_t>(rank)] = true;
    } catch (const std::exception& error) {
      if (failure_.empty()) failure_ = "rank " + std::to_string(rank) + ": " + error.what();
    }
  }

  // Runs one of a rank's other actors: records a failure, but only run() marks the rank finished.
  template <class Body>
  void guard(Rank rank, Body&& body) {
    try {
      body();
    } catch (const std::exception& error) {
      if (failure_.empty()) failure_ = "rank " + std::to_string(rank) + ": " + error.what();
    }
  }

  // Throws SimulationError unless every rank finished and SimGrid saw no deadlock.
  void check(bool ranToTheEnd) const {
    if (!failure_.empty()) throw SimulationError("simulation failed: " + failure_);
    std::vector<Rank> waiting;
    for (std::size_t rank = 0; rank < finished_.size(); ++rank)
      if (!finished_[rank]) waiting.push_back(static_cast<Rank>(rank));
    if (!ranToTheEnd && waiting.empty())
      throw SimulationError("simulation stopped with actors waiting forever: the schedule deadlocks on this platform");
    throwIfStuck(waiting);
  }

 private:
  std::vector<bool> finished_;
  std::string failure_;
};

}  // namespace ddl
