#pragma once
// Runs every rank's program together under the rules of ProgramExecution, as a discrete-event simulation
// without contention: each transfer and reduction takes the time an observer assigns it. With zero times
// it is the verifier's symbolic execution; with α-β-γ times it is the analytic schedule walk.

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/execution/message_matching.hpp"
#include "algorithms/execution/program_execution.hpp"

namespace ddl {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual double transferSeconds(const Step& send, Rank from, Rank to) = 0;
  virtual double reduceSeconds(const Step& receiveReduce) = 0;
  // Called when a transfer or reduction ends; returning false stops the run.
  virtual bool transferEnded(Rank from, StepIndex send, Rank to, StepIndex receive) = 0;
  virtual bool reductionEnded(Rank rank, StepIndex receiveReduce) = 0;
};

class ScheduleRun {
 public:
  // `programs` (programs[r].rank() == r) and `matching` (without problems) must outlive the run.
  ScheduleRun(const std::vector<Program>& programs, const MessageMatching& matching);

  // Runs until every step completes, nothing more can happen (a cyclic wait), or the observer stops it.
  // Returns the time of the last event.
  double run(RunObserver& observer);

  bool finished() const;
  const ProgramExecution& execution(Rank rank) const { return executions_[static_cast<std::size_t>(rank)]; }

 private:
  struct Event {
    double time;
    std::uint64_t order;  // ties end in the order they were scheduled
    Rank rank;            // the sender for a transfer, the reducing rank for a reduction
    StepIndex step;
    bool transfer;
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : order > other.order;
    }
  };

  void perform(Rank rank, double now, RunObserver& observer);
  void schedule(double time, Rank rank, StepIndex step, bool transfer);

  const std::vector<Program>& programs_;
  const MessageMatching& matching_;
  std::vector<ProgramExecution> executions_;
  std::vector<Event> events_;  // a min-heap on (time, order)
  std::uint64_t scheduled_ = 0;
  std::vector<ProgramExecution::Action> actions_;
};

}  // namespace ddl
