#pragma once
// Values both simulation engines give a platform, so that they model the same one.

#include <cmath>

namespace ddl {

// Host speed is arbitrary: compute is expressed in seconds and converted with it.
inline constexpr double kHostSpeed = 1e12;
// Enough cores that compute and every concurrent reduction of a GPU run side by side without sharing one:
// the GPU's reductions cost γ per byte each, as in the α-β-γ model.
inline constexpr int kCoresPerGpu = 1024;
// SimGrid cannot represent an infinite bandwidth; a link of no cost per byte gets this instead.
inline constexpr double kUnlimitedBandwidth = 1e30;

// A link's bandwidth as both engines simulate it: an infinite or larger one becomes kUnlimitedBandwidth.
inline double simulatedBandwidth(double bandwidthBps) {
  return std::isfinite(bandwidthBps) && bandwidthBps < kUnlimitedBandwidth ? bandwidthBps : kUnlimitedBandwidth;
}

}  // namespace ddl
