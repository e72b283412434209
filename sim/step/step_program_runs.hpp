#pragma once
// Every rank's programs on the step engine, under the rules of ProgramExecution and as runProgramOnSimGrid
// runs them on SimGrid: each posted step waits in the FIFO of its stream (sender, receiver, channel) for its
// match, a matched pair becomes one message over the route from sender to receiver, and each reduction an
// execution of bytes·γ on the rank's host (or, where reductions are memory traffic, a transfer to the
// memory). A rank runs one program at a time; its owner is told when it has ended, and may start the next.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "algorithms/execution/program_execution.hpp"
#include "sim/step/step_platform.hpp"

namespace ddl::step {

class ProgramRuns final : public FluidSimulation::Listener {
 public:
  class Owner {
   public:
    virtual void programEnded(Rank rank) = 0;

   protected:
    ~Owner() = default;
  };

  ProgramRuns(StepPlatform& platform, int elementBytes, Owner& owner);

  // Starts `program` on its rank now; `program` must outlive its run, and the rank's previous run must have
  // ended. Each byte its messages send costs `wireBytesPerByte` on their links (CollectiveSpec::wireBytesPerByte).
  void start(const Program& program, double wireBytesPerByte);
  bool running(Rank rank) const { return executions_[static_cast<std::size_t>(rank)] != nullptr; }
  void ended(std::uint64_t tag) override;

 private:
  struct Posted {
    Rank rank;
    StepIndex step;
  };
  // First in, first out. Holds one entry at a time in practice (a stream posts its next step once the last
  // has completed), so a vector emptied when drained: a std::deque allocated 512 bytes per side up front,
  // megabytes scattered over the heap at thousands of ranks.
  struct PostedQueue {
    std::vector<Posted> entries;
    std::size_t head = 0;
    bool empty() const { return head == entries.size(); }
    const Posted& front() const { return entries[head]; }
    void push_back(const Posted& posted) { entries.push_back(posted); }
    void pop_front() {
      if (++head == entries.size()) {
        entries.clear();
        head = 0;
      }
    }
  };
  struct Mailbox {
    PostedQueue sends;
    PostedQueue receives;
    const StepRoute* route = nullptr;  // from its sender to its receiver
  };
  struct Message {
    Posted sender;
    Posted receiver;
    std::uint8_t partsLeft = 1;  // the message, and its carrying where that takes work (sim/engine/network_work.hpp)
  };

  void perform(Rank rank);
  Mailbox& mailboxFor(Rank from, Rank to, Channel channel);
  void match(Mailbox& mailbox);
  void transferred(const Posted& side);
  void finishIfDone(Rank rank);

  StepPlatform& platform_;
  FluidSimulation& simulation_;
  int elementBytes_;
  Owner& owner_;
  std::vector<std::unique_ptr<ProgramExecution>> executions_;
  std::vector<double> wireBytesPerByte_;  // per rank, of its running program
  // Per rank, the mailbox of each stream of its running program, found once per run rather than per message.
  std::vector<std::vector<Mailbox*>> streamMailboxes_;
  std::vector<ProgramExecution::Action> actions_;
  std::unordered_map<std::uint64_t, Mailbox> mailboxes_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> freeMessages_;
};

}  // namespace ddl::step
