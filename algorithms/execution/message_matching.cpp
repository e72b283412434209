#include "algorithms/execution/message_matching.hpp"

namespace ddl {

MessageMatching::MessageMatching(const std::vector<Program>& programs) : counterparts_(programs.size()) {
  for (const Program& program : programs) {
    auto& counterparts = counterparts_[static_cast<std::size_t>(program.rank())];
    counterparts.assign(static_cast<std::size_t>(program.size()), -1);
    for (StepIndex index = 0; index < program.size(); ++index) {
      const Step& step = program.step(index);
      const Program& peer = programs[static_cast<std::size_t>(step.peer)];
      const int stream = peer.findStream({!step.sends(), program.rank(), step.channel});
      const auto matches = stream < 0 ? std::span<const StepIndex>() : peer.streamSteps(stream);
      if (static_cast<std::size_t>(step.sequence) >= matches.size()) {
        if (!firstProblem_)
          firstProblem_ = UnmatchedStep{program.rank(), index,
                                        program.describe(index) + " has no matching " +
                                            (step.sends() ? "receive" : "send") + ": rank " +
                                            std::to_string(step.peer) + " has " + std::to_string(matches.size()) +
                                            (step.sends() ? " receives from" : " sends to") + " rank " +
                                            std::to_string(program.rank()) + " on channel " +
                                            std::to_string(step.channel)};
        continue;
      }
      const StepIndex match = matches[static_cast<std::size_t>(step.sequence)];
      if (peer.step(match).range != step.range && !firstProblem_)
        firstProblem_ = UnmatchedStep{program.rank(), index,
                                      program.describe(index) + " and its match, " + peer.describe(match) +
                                          ", name different ranges"};
      counterparts[static_cast<std::size_t>(index)] = match;
    }
  }
}

}  // namespace ddl
