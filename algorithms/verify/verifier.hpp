#pragma once
// Proves what a schedule computes by running it on symbols instead of numbers: each run of buffer
// elements holds the set of ranks whose contributions it sums. After an allreduce, every element of every
// rank must hold each rank's contribution exactly once; after a reduce-scatter, rank r's block r must; after
// an all-gather, block b of every rank must hold rank b's block.
//
// Before running, it checks every step is well-formed, every send has its receive, and no two steps of a
// rank that touch the same elements (one writing) can be in flight together. While running, it catches a
// contribution added twice and data sent before it exists; when nothing more can happen, a cyclic wait.

#include <string>
#include <string_view>

#include "algorithms/schedule/schedule.hpp"

namespace ddl {

enum class VerificationProblem {
  None,
  InvalidStep,       // peer, range or dependency out of bounds
  Unmatched,         // a send without its receive or the reverse, or sizes that differ
  Race,              // two unordered steps of a rank touch the same elements, at least one writing
  DoubleCounted,     // a reduction adds contributions an element already holds
  UndefinedData,     // a send of elements that hold no data yet
  CyclicWait,        // steps that wait for each other in a cycle
  WrongResult,       // the run ends without the collective's result
  TooLarge,          // ranks x distinct segments exceeds what the verifier holds in memory
};

std::string_view toString(VerificationProblem problem);

struct VerificationReport {
  VerificationProblem problem = VerificationProblem::None;
  Rank rank = -1;        // the first offending rank and step, where there is one
  StepIndex step = -1;
  std::string message;

  bool ok() const { return problem == VerificationProblem::None; }
};

VerificationReport verify(const Schedule& schedule);

}  // namespace ddl
