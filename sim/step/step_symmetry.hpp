#pragma once
// Ranks that do the same thing, simulated once.
//
// A schedule may claim a translation period T_s (Schedule::translationPeriod): rank r + T_s runs rank r's
// program moved by T_s ranks. If moving every rank by T, a multiple of T_s that divides P, also maps the
// platform onto itself (the route of every message onto the route of the moved message, link for link and
// of equal links; every rank's reductions onto its mover's), then the P/T translates of a rank live through
// the same events at the same times, and the step engine simulates ranks 0 .. T-1 alone:
//
// - a message of a simulated rank to any rank q is matched, in its stream's mailbox, with the receive of
//   the simulated rank q mod T: the one that stands for q;
// - a link stands for its orbit (the links the translations map it to) with |orbit| / (P/T) of its
//   capacity: each translate of a message crossing the orbit crosses one of its links, so a link of a full
//   orbit keeps its capacity and a link every translate crosses (a switch all of them share) gives each
//   1/(P/T) of it. Max-min sharing has one solution; the full system's is the same on every translate,
//   so it is the quotient's, lifted.
//
// Found by checking the moved routes of every message of the whole job (P routes per stream of a rank,
// not P times the steps), for the smallest such T. Where the platform runs every rank's compute on one
// machine (an emulated cluster) nothing is claimed: that machine is shared by all, and charged per message.

#include <map>
#include <optional>
#include <span>
#include <utility>

#include "algorithms/schedule/schedule.hpp"
#include "topologies/platform_description.hpp"

namespace ddl::step {

// A resource of the step engine: a link and its direction, or (a link shared by both directions) true.
using LinkResourceKey = std::pair<LinkId, bool>;

LinkResourceKey linkResourceKey(const RouteHop& hop, const PlatformLink& spec);

struct RankSymmetry {
  int period = 0;  // ranks simulated: 0 .. period - 1, each standing for every rank congruent to it
  int copies = 1;  // ranks / period
  struct Orbit {
    LinkResourceKey representative;
    double capacityShare = 1;  // of the representative's own capacity: |orbit| / copies
  };
  // Every link resource a message or reduction of the job crosses, with its orbit.
  std::map<LinkResourceKey, Orbit> orbits;

  Rank representative(Rank rank) const { return rank % period; }
};

// The smallest translation of `schedule` on `platform` (which describes its ranks), or nullopt if the
// schedule claims none or the platform breaks every one it claims.
std::optional<RankSymmetry> findRankSymmetry(const Schedule& schedule, const PlatformDescription& platform);
// The same for schedules every rank runs one after another (a training iteration's buckets): one
// translation of them all, a multiple of every one's claim. A simulated rank's mailbox to the rank
// standing for two peers of different schedules holds one schedule's messages at a time, in order.
std::optional<RankSymmetry> findRankSymmetry(std::span<const Schedule> schedules, const PlatformDescription& platform);

}  // namespace ddl::step
