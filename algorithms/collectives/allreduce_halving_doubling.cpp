// halving-doubling (Rabenseifner): a reduce-scatter by recursive halving, where in step k each rank
// sends half of its current range to the rank 2^k away and reduces the other half it receives, then an
// all-gather by recursive doubling that retraces the steps backwards. 2·lg p messages and 2(p-1)/p·n bytes
// per rank. Any p, through the power-of-two fold (MPICH's reduce-scatter/all-gather allreduce).

#include <vector>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/power_of_two_fold.hpp"

namespace ddl {
namespace {

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions&, int) {
  const PowerOfTwoFold fold(group);
  fold.appendFoldIn(builder, range);
  const int me = fold.activeIndexOf(builder.self());
  if (me >= 0) {
    // Distances grow from 1 so that partners always share the range they split, and the contributions a
    // range holds are a contiguous run of ranks.
    std::vector<Range> held{range};
    for (int distance = 1; distance < fold.activeSize(); distance *= 2) {
      const Rank partner = fold.activeRank(me ^ distance);
      const bool keepLower = (me & distance) == 0;
      const Range lower = blockOf(held.back(), 2, 0);
      const Range upper = blockOf(held.back(), 2, 1);
      builder.send(partner, keepLower ? upper : lower);
      builder.receiveReduce(partner, keepLower ? lower : upper);
      held.push_back(keepLower ? lower : upper);
    }
    for (int distance = fold.activeSize() / 2; distance >= 1; distance /= 2) {
      const Rank partner = fold.activeRank(me ^ distance);
      const Range mine = held.back();
      held.pop_back();
      const Range whole = held.back();
      builder.send(partner, mine);
      builder.receiveCopy(partner, mine.offset == whole.offset ? Range{mine.end(), whole.end() - mine.end()}
                                                               : Range{whole.offset, mine.offset - whole.offset});
    }
  }
  fold.appendFoldOut(builder, range);
}

// Each exchange starts when the later of the two partners is ready, and each partner is then busy for its
// own received half. With a power of two every rank starts together and rank 0, which keeps the larger
// half at every split, carries the largest message of every step: the textbook sum. With the fold the
// partners of folded ranks start later and the halves of a pair differ, so the time is this recurrence
// over the p' active ranks' clocks (exact for schedules whose steps all move data).
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions&, const CostModel& model) {
  const LinkCost& link = model.link(0);
  const int active = largestPowerOfTwoAtMost(spec.ranks);
  const int folded = spec.ranks - active;
  auto bytes = [&](Elements elements) { return static_cast<double>(elements) * spec.elementBytes; };
  const double whole = bytes(spec.elements);
  const double foldIn = link.messageSeconds(whole) + model.reduceSeconds(whole);

  std::vector<double> clock(static_cast<std::size_t>(active));
  std::vector<std::vector<Elements>> held(static_cast<std::size_t>(active), std::vector<Elements>{spec.elements});
  for (int a = 0; a < active; ++a) clock[static_cast<std::size_t>(a)] = a < folded ? foldIn : 0;
  auto exchange = [&](int distance, auto&& received) {
    for (int a = 0; a < active; ++a) {
      const int b = a ^ distance;
      if (b < a) continue;
      const double start = std::max(clock[static_cast<std::size_t>(a)], clock[static_cast<std::size_t>(b)]);
      clock[static_cast<std::size_t>(a)] = start + received(a, b);
      clock[static_cast<std::size_t>(b)] = start + received(b, a);
    }
  };
  for (int distance = 1; distance < active; distance *= 2) {
    for (int a = 0; a < active; ++a) {
      auto& chain = held[static_cast<std::size_t>(a)];
      chain.push_back((a & distance) == 0 ? largestBlock(chain.back(), 2) : chain.back() / 2);
    }
    exchange(distance, [&](int a, int) {
      const double kept = bytes(held[static_cast<std::size_t>(a)].back());
      return link.messageSeconds(kept) + model.reduceSeconds(kept);
    });
  }
  for (int distance = active / 2; distance >= 1; distance /= 2) {
    exchange(distance, [&](int, int b) { return link.messageSeconds(bytes(held[static_cast<std::size_t>(b)].back())); });
    for (auto& chain : held) chain.pop_back();
  }
  double last = 0;
  for (int a = 0; a < active; ++a)
    last = std::max(last, clock[static_cast<std::size_t>(a)] + (a < folded ? link.messageSeconds(whole) : 0));
  return last;
}

}  // namespace

const AlgorithmDefinition kHalvingDoublingAllreduce{
    .name = "halving-doubling",
    .collective = CollectiveKind::Allreduce,
    .summary = "Rabenseifner: recursive-halving reduce-scatter, recursive-doubling all-gather",
    .composable = true,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
