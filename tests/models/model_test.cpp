// Model files give a GPU's iteration: the measured time, split by FLOPs across the backward pass.

#include <gtest/gtest.h>

#include "common/invalid_argument.hpp"
#include "models/model.hpp"

namespace ddl {
namespace {

std::string modelFile(const std::string& name) { return std::string(DDLSCALE_SOURCE_DIR) + "/models/" + name + ".json"; }

TEST(Model, HoldsTheReferenceParameterCounts) {
  // docs/reference/README.md
  EXPECT_EQ(Model::load(modelFile("resnet50")).parameters(), 25'557'032);
  EXPECT_EQ(Model::load(modelFile("resnet101")).parameters(), 44'549'160);
  EXPECT_EQ(Model::load(modelFile("resnet101-22k")).parameters(), 87'252'369);
}

TEST(Model, AWorkloadTakesTheMeasuredIterationTime) {
  const TrainingWorkload p100 = Model::load(modelFile("resnet50")).workload("P100", 32);
  EXPECT_NEAR(p100.computeSeconds(), 32.0 / 195, 1e-12);  // 195 images/s, TensorFlow benchmarks
  EXPECT_NEAR(p100.backwardSeconds(), 2 * p100.forwardSeconds, 1e-12);
  EXPECT_NEAR(p100.optimizerSeconds, 20.0 * 25'557'032 / 732e9, 1e-12);
  const TrainingWorkload h200 = Model::load(modelFile("resnet50")).workload("H200", 128);
  EXPECT_NEAR(h200.computeSeconds(), 0.1290128631591797, 1e-9);
  EXPECT_EQ(h200.gradientElements(), 25'557'032);
  EXPECT_EQ(h200.gradients.front().name, "fc.bias");
  // The bf16 profile, measured on the same H200 (docs/reference/h200-measured-2026-11-29.json: 32.9 ms).
  const TrainingWorkload bf16 = Model::load(modelFile("resnet50")).workload("H200", 128, "bf16");
  EXPECT_NEAR(bf16.computeSeconds(), 0.032946720123291016, 1e-9);
  EXPECT_EQ(bf16.computePrecision, "bf16");
  EXPECT_EQ(bf16.gradientPrecision, "fp32") << "the caller chooses what the gradients are reduced in";
  EXPECT_THROW(Model::load(modelFile("resnet50")).workload("P100", 32, "bf16"), InvalidArgument);
}

TEST(Model, GivesBackwardTimeInProportionToFlops) {
  const TrainingWorkload workload = Model::load(modelFile("resnet50")).workload("P100", 32);
  double conv1 = 0, fcBias = 0;
  for (const GradientTensor& tensor : workload.gradients) {
    if (tensor.name == "conv1.weight") conv1 = tensor.backwardSeconds;
    if (tensor.name == "fc.bias") fcBias = tensor.backwardSeconds;
  }
  // conv1: 64x3x7x7 weights on a 112x112 map, 2 x 9408 x 112^2 FLOPs forward, twice that backward; of
  // 2 x 8.178 GFLOPs in all.
  EXPECT_NEAR(conv1 / workload.backwardSeconds(), 2 * 9408.0 * 112 * 112 / 8'178'368'512, 1e-9);
  EXPECT_EQ(fcBias, 0);
}

TEST(Model, AskingForAnUnmeasuredBatchListsTheMeasuredOnes) {
  try {
    Model::load(modelFile("resnet50")).workload("P100", 48);
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("P100 fp32 at batch 32"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ddl
