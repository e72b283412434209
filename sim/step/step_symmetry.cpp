#include "sim/step/step_symmetry.hpp"

#include <numeric>
#include <set>
#include <vector>

namespace ddl::step {
namespace {

// The map a translation makes of the link resources, built from pairs of routes it must map onto each
// other; false once two routes disagree (another length, unequal links, a resource sent to two images).
class LinkTranslation {
 public:
  explicit LinkTranslation(const PlatformDescription& platform) : platform_(platform) {}

  bool maps(const std::vector<RouteHop>& from, const std::vector<RouteHop>& to) {
    if (from.size() != to.size()) return false;
    for (std::size_t i = 0; i < from.size(); ++i) {
      const PlatformLink a = platform_.link(from[i].link);
      const PlatformLink b = platform_.link(to[i].link);
      if (a.bandwidthBps != b.bandwidthBps || a.latencySeconds != b.latencySeconds || a.sharing != b.sharing) return false;
      if (a.sharing == LinkSharing::None) continue;  // no resource: its bound and latency are all it is
      const LinkResourceKey source = linkResourceKey(from[i], a);
      const LinkResourceKey image = linkResourceKey(to[i], b);
      if (image_.try_emplace(source, image).first->second != image) return false;
      if (preimage_.try_emplace(image, source).first->second != source) return false;
    }
    return true;
  }
  const std::map<LinkResourceKey, LinkResourceKey>& image() const { return image_; }

 private:
  const PlatformDescription& platform_;
  std::map<LinkResourceKey, LinkResourceKey> image_, preimage_;
};

// A stream of a rank's program, as its direction, the distance to its peer (forward for a send, back for a
// receive) and its channel.
struct Stream {
  bool sending;
  Rank distance;
  Channel channel;
};

std::vector<Stream> streamsOf(const Program& program, int ranks) {
  std::vector<Stream> streams;
  for (int s = 0; s < program.streamCount(); ++s) {
    const StreamKey& key = program.streamKey(s);
    const Rank forward = (key.peer - program.rank() + ranks) % ranks;
    streams.push_back({key.sending, key.sending ? forward : (ranks - forward) % ranks, key.channel});
  }
  return streams;
}

// Whether no two streams of one direction and channel would share a mailbox in the quotient, as they would
// where their peers stand for one simulated rank.
bool streamsStayApart(const std::vector<Stream>& streams, int period) {
  for (std::size_t i = 0; i < streams.size(); ++i)
    for (std::size_t j = i + 1; j < streams.size(); ++j)
      if (streams[i].sending == streams[j].sending && streams[i].channel == streams[j].channel &&
          streams[i].distance % period == streams[j].distance % period)
        return false;
  return true;
}

// The orbits of the links `translation` maps, from the cycles it makes of them.
std::map<LinkResourceKey, RankSymmetry::Orbit> orbitsOf(const std::map<LinkResourceKey, LinkResourceKey>& image, int copies) {
  std::map<LinkResourceKey, std::size_t> index;
  std::vector<LinkResourceKey> keys;
  for (const auto& [key, unused] : image) {
    index.emplace(key, keys.size());
    keys.push_back(key);
  }
  std::vector<std::size_t> parent(keys.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const auto& [key, to] : image) {
    const std::size_t a = find(index.at(key)), b = find(index.at(to));
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smallest key represents its orbit
  }
  std::vector<int> size(keys.size(), 0);
  for (std::size_t i = 0; i < keys.size(); ++i) ++size[find(i)];
  std::map<LinkResourceKey, RankSymmetry::Orbit> orbits;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::size_t root = find(i);
    orbits.emplace(keys[i], RankSymmetry::Orbit{keys[root], static_cast<double>(size[root]) / copies});
  }
  return orbits;
}

// What the schedules' streams are, as the translations are checked against them: each schedule's ranks
// 0 .. its claim-1 (a schedule's streams must stay apart in the quotient), and, for each class of rank
// modulo every claim, the distances it sends over in any schedule, each once (buckets of one algorithm
// send alike: their routes need checking once).
struct JobStreams {
  std::vector<std::vector<std::vector<Stream>>> bySchedule;
  std::vector<std::set<Rank>> sendingDistancesByClass;
};

// The orbits if moving every rank by `period` maps the job onto itself, else nullopt.
std::optional<std::map<LinkResourceKey, RankSymmetry::Orbit>> translationBy(int period, const JobStreams& streams,
                                                                            const PlatformDescription& platform) {
  const int ranks = platform.hosts();
  for (const auto& bySchedule : streams.bySchedule)
    for (const auto& ofRank : bySchedule)
      if (!streamsStayApart(ofRank, period)) return std::nullopt;
  const std::size_t classes = streams.sendingDistancesByClass.size();
  LinkTranslation translation(platform);
  for (Rank r = 0; r < ranks; ++r) {
    const Rank moved = (r + period) % ranks;
    if (platform.reduceSecondsPerByte(r) != platform.reduceSecondsPerByte(moved)) return std::nullopt;
    const std::optional<ReductionTraffic> reduction = platform.reductionTraffic(r), movedReduction = platform.reductionTraffic(moved);
    if (reduction.has_value() != movedReduction.has_value()) return std::nullopt;
    if (reduction && (reduction->bytesPerReducedByte != movedReduction->bytesPerReducedByte ||
                      !translation.maps(reduction->route, movedReduction->route)))
      return std::nullopt;
    for (const Rank distance : streams.sendingDistancesByClass[static_cast<std::size_t>(r) % classes]) {
      const Rank peer = (r + distance) % ranks;
      if (!translation.maps(platform.route(r, peer), platform.route(moved, (peer + period) % ranks))) return std::nullopt;
    }
  }
  const int copies = ranks / period;
  std::map<LinkResourceKey, RankSymmetry::Orbit> orbits = orbitsOf(translation.image(), copies);
  for (const auto& [key, orbit] : orbits)
    if (orbit.capacityShare > 1) return std::nullopt;  // an orbit longer than the translations: not one of them
  return orbits;
}

}  // namespace

LinkResourceKey linkResourceKey(const RouteHop& hop, const PlatformLink& spec) {
  return {hop.link, spec.sharing == LinkSharing::PerDirection ? hop.up : true};
}

std::optional<RankSymmetry> findRankSymmetry(const Schedule& schedule, const PlatformDescription& platform) {
  return findRankSymmetry(std::span(&schedule, 1), platform);
}

std::optional<RankSymmetry> findRankSymmetry(std::span<const Schedule> schedules, const PlatformDescription& platform) {
  const int ranks = platform.hosts();
  if (schedules.empty() || platform.sharedComputeThroughput()) return std::nullopt;
  int claimed = 1;  // every schedule's claim divides it
  JobStreams streams;
  for (const Schedule& schedule : schedules) {
    const int period = schedule.translationPeriod();
    if (period <= 0 || schedule.participants() != ranks || ranks % period != 0) return std::nullopt;
    claimed = std::lcm(claimed, period);
    streams.bySchedule.emplace_back();
    for (Rank r = 0; r < period; ++r) streams.bySchedule.back().push_back(streamsOf(schedule.program(r), ranks));
  }
  // Only sends: a receive's message is its sender's send.
  streams.sendingDistancesByClass.resize(static_cast<std::size_t>(claimed));
  for (std::size_t c = 0; c < streams.sendingDistancesByClass.size(); ++c)
    for (const auto& bySchedule : streams.bySchedule)
      for (const Stream& stream : bySchedule[c % bySchedule.size()])
        if (stream.sending) streams.sendingDistancesByClass[c].insert(stream.distance);
  for (int period = claimed; period < ranks; period += claimed) {
    if (ranks % period != 0) continue;
    if (auto orbits = translationBy(period, streams, platform)) return RankSymmetry{period, ranks / period, std::move(*orbits)};
  }
  return std::nullopt;
}

}  // namespace ddl::step
