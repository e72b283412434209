#pragma once
// What a transport has in flight: request ids beside the work that completes them, in posting order.

#include <utility>
#include <vector>

#include "runtime/transport.hpp"

namespace ddl {

// Removes the entries `finished(work)` says are done, keeping the others in order, and appends the
// removed ids in order to `done`: one pass of a transport's waitSome.
template <class Work, class Finished>
void takeFinished(std::vector<std::pair<RequestId, Work>>& inFlight, Finished&& finished, std::vector<RequestId>& done) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < inFlight.size(); ++i) {
    if (finished(inFlight[i].second)) {
      done.push_back(inFlight[i].first);
    } else {
      if (kept != i) inFlight[kept] = std::move(inFlight[i]);
      ++kept;
    }
  }
  inFlight.resize(kept);
}

}  // namespace ddl
