#pragma once
// A platform as another, its host work done at one job's speed: a job that computes `factor` times as slow
// as the job a profile was measured in (IterationEffects::jobTimeFactor) reduces and carries messages that
// much slower too, where the platform charges those as work (a reduction's seconds per byte; on a machine
// every rank shares, the work of carrying a message, priced in seconds of a rank's compute). The links, whose
// rates are set by hardware or by a shaper, are unchanged.

#include "topologies/platform_decorator.hpp"

namespace ddl {

class PlatformAtJobSpeed final : public PlatformDecorator {
 public:
  PlatformAtJobSpeed(const PlatformDescription& platform, double factor) : PlatformDecorator(platform), factor_(factor) {}

  double reduceSecondsPerByte(Rank rank) const override { return factor_ * platform().reduceSecondsPerByte(rank); }
  double networkWorkSecondsPerByte(Rank from, Rank to) const override {
    return factor_ * platform().networkWorkSecondsPerByte(from, to);
  }

 private:
  double factor_;
};

}  // namespace ddl
