#pragma once
// ddlsim SCENARIO --sensitivity: which uncertain input moves a prediction most. For one GPU count of a
// scenario, each input the samples of --samples draw (each sourced effect, and the seeds of the per-rank
// draws) is varied alone over its prior, every other at its central value, and each algorithm's efficiency
// is reported as the 5th to 95th percentile of those samples: the input's own swing. Then all of them
// together, the interval --samples gives.

#include <string>
#include <vector>

#include "algorithms/training/scaling_point.hpp"
#include "scenarios/scenario.hpp"
#include "sim/engine/engine.hpp"

namespace ddl {

struct InputSwing {
  std::string input;  // an effect's key ("overlap_slowdown"), "seeds of the per-rank draws", or "all together"
  Percentiles efficiency;
};

// One algorithm's point and the swing of each input, the widest first, "all together" last.
struct PointSensitivity {
  std::string label;
  int gpus = 0;
  double centralEfficiency = 0;  // at every input's central value
  std::vector<InputSwing> swings;
};

struct Sensitivity {
  std::string scenario;
  int samples = 0;
  std::vector<PointSensitivity> points;  // in the scenario's order of algorithms
};

// The inputs --sensitivity varies one at a time: the scenario's sourced effects, "seeds" where a per-rank
// draw is on at the central values (compute jitter, a GPU speed spread or time factors), and the job's
// speed where the scenario gives job time factors.
// InvalidArgument naming --sensitivity where there are none.
std::vector<std::string> uncertainInputs(const Scenario& scenario);

// The sensitivity of `scenario` at `gpus` GPUs (one of its GPU counts), `samples` samples per input, each a
// simulation in a fresh process, `jobs` at a time (fewer where memory would not hold them). InvalidArgument
// naming --sensitivity where nothing is uncertain, as ScenarioSweep's constructor and its memory check.
Sensitivity sensitivityOf(const Scenario& scenario, const Engine& engine, int gpus, int samples, double computeScale, int jobs);

}  // namespace ddl
