#pragma once
// What each rank of a schedule sends and receives: the figures `ddlsim schedule` prints per rank.

#include <vector>

#include "algorithms/schedule/schedule.hpp"

namespace ddl {

struct RankTraffic {
  Rank rank = 0;
  StepIndex steps = 0;
  StepIndex sends = 0;
  StepIndex receives = 0;
  double bytesSent = 0;
  double bytesReceived = 0;
};

RankTraffic trafficOf(const Program& program, int elementBytes);
// Generates one rank's program at a time, so it works for schedules too large to hold whole. The ranks
// only: a switch that reduces between them (CollectiveSpec::switches) is no rank's traffic.
std::vector<RankTraffic> trafficPerRank(const Schedule& schedule);

}  // namespace ddl
