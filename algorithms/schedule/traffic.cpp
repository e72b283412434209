#include "algorithms/schedule/traffic.hpp"

namespace ddl {

RankTraffic trafficOf(const Program& program, int elementBytes) {
  RankTraffic traffic;
  traffic.rank = program.rank();
  traffic.steps = program.size();
  for (const Step& step : program.steps()) {
    const double bytes = static_cast<double>(step.range.count) * elementBytes;
    if (step.sends()) {
      ++traffic.sends;
      traffic.bytesSent += bytes;
    } else {
      ++traffic.receives;
      traffic.bytesReceived += bytes;
    }
  }
  return traffic;
}

std::vector<RankTraffic> trafficPerRank(const Schedule& schedule) {
  std::vector<RankTraffic> traffic;
  traffic.reserve(static_cast<std::size_t>(schedule.ranks()));
  for (Rank rank = 0; rank < schedule.ranks(); ++rank)
    traffic.push_back(trafficOf(schedule.program(rank), schedule.spec().elementBytes));
  return traffic;
}

}  // namespace ddl
