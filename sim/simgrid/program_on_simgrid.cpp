#include "sim/simgrid/program_on_simgrid.hpp"

#include <cstdint>

#include "algorithms/execution/program_execution.hpp"

namespace ddl {
namespace sg4 = simgrid::s4u;

void connectProgramPeers(const Program& program, SimulatedPlatform& platform) {
  platform.connectReductions(program.rank());
  for (int stream = 0; stream < program.streamCount(); ++stream) {
    const StreamKey& key = program.streamKey(stream);
    if (key.sending) {
      platform.connect(program.rank(), key.peer);
    } else {
      platform.connect(key.peer, program.rank());
    }
  }
}

void runProgramOnSimGrid(const Program& program, SimulatedPlatform& platform, int elementBytes, double wireBytesPerByte) {
  std::vector<sg4::Mailbox*> mailboxes;
  std::vector<NetworkWork> sendWork;  // per stream: what carrying its messages costs the shared machine
  for (int stream = 0; stream < program.streamCount(); ++stream) {
    const StreamKey& key = program.streamKey(stream);
    mailboxes.push_back(key.sending ? platform.mailbox(program.rank(), key.peer, key.channel)
                                    : platform.mailbox(key.peer, program.rank(), key.channel));
    sendWork.push_back(key.sending ? platform.networkWork(program.rank(), key.peer) : NetworkWork{});
  }
  sg4::Host* gpu = platform.host(program.rank());
  const double gamma = platform.reduceSecondsPerByte(program.rank());
  sg4::Host* reductionSink = platform.reductionSink(program.rank());
  const double reductionBytesPerByte = platform.reductionBytesPerByte(program.rank());
  sg4::Host* networkWorkHost = platform.networkWorkHost();
  static char payload = 0;  // messages carry their size, not their data
  void* received = nullptr;

  ProgramExecution execution(program);
  std::vector<ProgramExecution::Action> actions;
  std::vector<sg4::ActivityPtr> inFlight;
  std::vector<ProgramExecution::Action> inFlightActions;
  // Per step, the activities still running of a send that also has its carrying work in flight.
  std::vector<std::uint8_t> partsLeft(static_cast<std::size_t>(program.size()), 1);
  auto perform = [&] {
    for (const ProgramExecution::Action& action : actions) {
      const Step& step = program.step(action.step);
      const double bytes = static_cast<double>(step.range.count) * elementBytes;
      sg4::Mailbox* mailbox = mailboxes[static_cast<std::size_t>(step.stream)];
      if (action.kind == ProgramExecution::ActionKind::Reduce) {
        if (reductionSink) {
          inFlight.push_back(sg4::Comm::sendto_async(gpu, reductionSink, static_cast<std::uint64_t>(bytes * reductionBytesPerByte)));
        } else {
          inFlight.push_back(gpu->exec_async(bytes * gamma * SimulatedPlatform::kHostSpeed));
        }
      } else if (step.sends()) {
        inFlight.push_back(mailbox->put_async(&payload, bytes * wireBytesPerByte));
        const NetworkWork& work = sendWork[static_cast<std::size_t>(step.stream)];
        if (work.secondsPerByte > 0 && bytes > 0) {
          // Exec::init and set_host: Host::exec_async of SimGrid 3.32 runs on the calling actor's host.
          sg4::ExecPtr carrying = sg4::Exec::init();
          carrying->set_flops_amount(bytes * work.secondsPerByte * SimulatedPlatform::kHostSpeed);
          carrying->set_host(networkWorkHost);
          carrying->set_priority(kNetworkWorkWeight);
          carrying->set_bound(work.secondsPerSecond * SimulatedPlatform::kHostSpeed);
          inFlight.push_back(carrying->start());
          inFlightActions.push_back(action);
          partsLeft[static_cast<std::size_t>(action.step)] = 2;
        }
      } else {
        inFlight.push_back(mailbox->get_async(&received));
      }
      inFlightActions.push_back(action);
    }
    actions.clear();
  };
  execution.start(actions);
  perform();
  while (!execution.finished()) {
    const auto done = static_cast<std::size_t>(sg4::Activity::wait_any(inFlight));
    const ProgramExecution::Action action = inFlightActions[done];
    inFlight.erase(inFlight.begin() + static_cast<std::ptrdiff_t>(done));
    inFlightActions.erase(inFlightActions.begin() + static_cast<std::ptrdiff_t>(done));
    if (action.kind == ProgramExecution::ActionKind::Reduce) {
      execution.reduced(action.step, actions);
    } else if (--partsLeft[static_cast<std::size_t>(action.step)] == 0) {
      partsLeft[static_cast<std::size_t>(action.step)] = 1;
      execution.transferred(action.step, actions);
    }
    perform();
  }
}

}  // namespace ddl
