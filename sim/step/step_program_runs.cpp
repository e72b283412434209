#include "sim/step/step_program_runs.hpp"

#include <stdexcept>

#include "sim/step/fluid/free_slots.hpp"

namespace ddl::step {
namespace {

// What an activity's tag says it is: a message (its slot), the work of carrying one (kCarrying and its
// slot), or a rank's reduction (rank and step).
constexpr std::uint64_t kReduction = std::uint64_t{1} << 63;
constexpr std::uint64_t kCarrying = std::uint64_t{1} << 62;

std::uint64_t mailboxKey(Rank from, Rank to, Channel channel) {
  return (static_cast<std::uint64_t>(from) << 40) | (static_cast<std::uint64_t>(to) << 16) | static_cast<std::uint16_t>(channel);
}

}  // namespace

ProgramRuns::ProgramRuns(StepPlatform& platform, int elementBytes, Owner& owner)
    : platform_(platform), simulation_(platform.simulation()), elementBytes_(elementBytes), owner_(owner),
      executions_(static_cast<std::size_t>(platform.ranks())), wireBytesPerByte_(static_cast<std::size_t>(platform.ranks()), 1),
      streamMailboxes_(static_cast<std::size_t>(platform.ranks())) {}

ProgramRuns::Mailbox& ProgramRuns::mailboxFor(Rank from, Rank to, Channel channel) {
  // Keyed by the simulated ranks that stand for the two (themselves, without a RankSymmetry); the route is
  // the two ranks' own. An unordered_map: the reference stays valid.
  Mailbox& mailbox = mailboxes_[mailboxKey(platform_.representative(from), platform_.representative(to), channel)];
  if (!mailbox.route) mailbox.route = &platform_.route(from, to);
  return mailbox;
}

void ProgramRuns::start(const Program& program, double wireBytesPerByte) {
  std::unique_ptr<ProgramExecution>& execution = executions_[static_cast<std::size_t>(program.rank())];
  if (execution) throw std::logic_error("a rank started a program before its last one ended");
  execution = std::make_unique<ProgramExecution>(program);
  wireBytesPerByte_[static_cast<std::size_t>(program.rank())] = wireBytesPerByte;
  std::vector<Mailbox*>& streams = streamMailboxes_[static_cast<std::size_t>(program.rank())];
  streams.clear();
  for (int stream = 0; stream < program.streamCount(); ++stream) {
    const StreamKey& key = program.streamKey(stream);
    streams.push_back(key.sending ? &mailboxFor(program.rank(), key.peer, key.channel)
                                  : &mailboxFor(key.peer, program.rank(), key.channel));
  }
  execution->start(actions_);
  perform(program.rank());
  finishIfDone(program.rank());
}

// Performs actions_, which `rank`'s execution has just appended.
void ProgramRuns::perform(Rank rank) {
  std::vector<ProgramExecution::Action> actions;
  actions.swap(actions_);
  const Program& program = executions_[static_cast<std::size_t>(rank)]->program();
  for (const ProgramExecution::Action& action : actions) {
    const Step& step = program.step(action.step);
    if (action.kind == ProgramExecution::ActionKind::Reduce) {
      const double bytes = static_cast<double>(step.range.count) * elementBytes_;
      const std::uint64_t tag = kReduction | (static_cast<std::uint64_t>(rank) << 32) | static_cast<std::uint32_t>(action.step);
      if (const StepRoute* memory = platform_.reductionRoute(rank)) {
        simulation_.start(bytes * platform_.reductionBytesPerByte(rank), memory->latency, memory->resources, memory->weight,
                          memory->bound, this, tag);
      } else {
        const FluidSimulation::ResourceId host[] = {platform_.host(rank)};
        simulation_.start(bytes * platform_.description().reduceSecondsPerByte(rank), 0, host, 1, 1, this, tag);
      }
    } else {
      Mailbox& mailbox = *streamMailboxes_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(step.stream)];
      (step.sends() ? mailbox.sends : mailbox.receives).push_back({rank, action.step});
      match(mailbox);
    }
  }
  actions.clear();
  actions_.swap(actions);  // keeps the capacity
}

void ProgramRuns::match(Mailbox& mailbox) {
  while (!mailbox.sends.empty() && !mailbox.receives.empty()) {
    const Message message{mailbox.sends.front(), mailbox.receives.front()};
    mailbox.sends.pop_front();
    mailbox.receives.pop_front();
    const std::uint32_t slot = fluid::takeSlot(messages_, freeMessages_);
    messages_[slot] = message;
    const Step& step = executions_[static_cast<std::size_t>(message.sender.rank)]->program().step(message.sender.step);
    const StepRoute& route = *mailbox.route;
    const double bytes = static_cast<double>(step.range.count) * elementBytes_;
    const double wireBytes = bytes * wireBytesPerByte_[static_cast<std::size_t>(message.sender.rank)];
    simulation_.start(wireBytes, route.latency, route.resources, route.weight, route.bound, this, slot);
    if (route.work.secondsPerByte > 0 && bytes > 0) {
      const FluidSimulation::ResourceId machine[] = {platform_.computeHost(message.sender.rank)};
      simulation_.start(bytes * route.work.secondsPerByte, 0, machine, kNetworkWorkWeight, route.work.secondsPerSecond, this,
                        kCarrying | slot);
      messages_[slot].partsLeft = 2;
    }
  }
}

void ProgramRuns::ended(std::uint64_t tag) {
  if (tag & kReduction) {
    const auto rank = static_cast<Rank>((tag & ~kReduction) >> 32);
    const auto step = static_cast<StepIndex>(tag & 0xffffffffu);
    executions_[static_cast<std::size_t>(rank)]->reduced(step, actions_);
    perform(rank);
    finishIfDone(rank);
    return;
  }
  // The sender is done once the message and its carrying are; the receiver once the message is.
  const auto slot = static_cast<std::uint32_t>(tag & ~kCarrying);
  const Message message = messages_[slot];
  if (--messages_[slot].partsLeft == 0) {
    freeMessages_.push_back(slot);
    transferred(message.sender);
  }
  if (!(tag & kCarrying)) transferred(message.receiver);
}

void ProgramRuns::transferred(const Posted& side) {
  executions_[static_cast<std::size_t>(side.rank)]->transferred(side.step, actions_);
  perform(side.rank);
  finishIfDone(side.rank);
}

void ProgramRuns::finishIfDone(Rank rank) {
  std::unique_ptr<ProgramExecution>& execution = executions_[static_cast<std::size_t>(rank)];
  if (!execution || !execution->finished()) return;
  execution.reset();
  owner_.programEnded(rank);
}

}  // namespace ddl::step
