// Model files give a GPU's iteration: the measured time, split by FLOPs across the backward pass.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

// A one-layer model with a profile at batch 2, in the unit `flops` names.
nlohmann::json smallModel(const char* flops, bool sequences) {
  nlohmann::json model = {{"name", "small"},
                          {"gradients", {{{"name", "w"}, {"elements", 1000}, {flops, 1e9}}}},
                          {"gpus", {{"H100", {{"memory", {{"bandwidth_Bps", 1e12}}},
                                              {"profiles", {{"bf16-2", {{"batch", 2}, {"iteration_s", 0.01}, {"source", "test"}}}}}}}}}};
  if (sequences) model["sequence_length"] = 128;
  return model;
}

std::string errorOf(const nlohmann::json& json) {
  try {
    Model::fromJson(json, "small.json");
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "";
}

TEST(Model, TransformersHoldTheirPublishedParameterCounts) {
  // GPT-2 124M, 355M and 1.5B with the output layer tied to the embedding (Radford et al. 2019, Table 2, and
  // Hugging Face's configurations); BERT-large with both pretraining heads; Llama 2 7B (Touvron et al. 2023).
  EXPECT_EQ(Model::load(modelFile("gpt2")).parameters(), 124'439'808);
  EXPECT_EQ(Model::load(modelFile("gpt2-medium")).parameters(), 354'823'168);
  EXPECT_EQ(Model::load(modelFile("gpt2-xl")).parameters(), 1'557'611'200);
  EXPECT_EQ(Model::load(modelFile("bert-large")).parameters(), 336'226'108);
  EXPECT_EQ(Model::load(modelFile("llama2-7b")).parameters(), 6'738'415'616);
  EXPECT_EQ(Model::load(modelFile("gpt2")).sequenceLength(), 1024);
  EXPECT_EQ(Model::load(modelFile("resnet50")).sequenceLength(), 0) << "a model of images";
}

TEST(Model, ALayersAttentionBackwardIsChargedToTheProjectionAfterIt) {
  // Llama 2 7B at 4096 tokens: v_proj's gradient follows the attention core's backward, 8·S²·h, and its own
  // 4·h²·S; the whole backward is twice the forward, 6.292e13 FLOPs per sequence (Narayanan et al.).
  const Model llama = Model::load(modelFile("llama2-7b"));
  ASSERT_FALSE(llama.profiles().empty());
  const ModelProfile& profile = llama.profiles().front();
  const TrainingWorkload workload = llama.workload(profile.gpu, profile.batch, profile.precision);
  const double s = 4096, h = 4096;
  double vProj = -1, qProj = -1;
  for (const GradientTensor& tensor : workload.gradients) {
    if (tensor.name == "model.layers.31.self_attn.v_proj.weight") vProj = tensor.backwardSeconds;
    if (tensor.name == "model.layers.31.self_attn.q_proj.weight") qProj = tensor.backwardSeconds;
  }
  const double forward = 32 * (2 * s * (4 * h * h + 3 * h * 11008) + 4 * s * s * h) + 2 * s * h * 32000;
  EXPECT_NEAR(vProj / workload.backwardSeconds(), (4 * h * h * s + 8 * s * s * h) / (2 * forward), 1e-9);
  EXPECT_NEAR(qProj / workload.backwardSeconds(), 4 * h * h * s / (2 * forward), 1e-9);
  EXPECT_EQ(workload.gradients.back().name, "model.embed_tokens.weight") << "the embedding's gradient is finished last";
}

TEST(Model, AdamsStepMovesSevenFp32ValuesPerParameter) {
  // Weight, gradient and two moments read; weight and two moments written.
  nlohmann::json json = smallModel("backward_flops_per_image", false);
  EXPECT_NEAR(Model::fromJson(json, "small.json").optimizerSeconds("H100"), 20.0 * 1000 / 1e12, 1e-18);
  json["optimizer"] = "adam";
  EXPECT_NEAR(Model::fromJson(json, "small.json").optimizerSeconds("H100"), 28.0 * 1000 / 1e12, 1e-18);
  json["optimizer"] = "adamw";
  EXPECT_NE(errorOf(json).find("$.optimizer"), std::string::npos) << errorOf(json);
  EXPECT_NE(errorOf(json).find("adam"), std::string::npos) << errorOf(json);
}

TEST(Model, FlopsAreCountedPerSampleUnderTheNameOfItsUnit) {
  EXPECT_EQ(errorOf(smallModel("backward_flops_per_sequence", true)), "");
  EXPECT_EQ(errorOf(smallModel("backward_flops_per_image", false)), "");
  // Per image in a model of sequences, or per sequence in a model of images: refused, naming the field.
  const std::string imagesInSequences = errorOf(smallModel("backward_flops_per_image", true));
  EXPECT_NE(imagesInSequences.find("$.gradients[0].backward_flops_per_image"), std::string::npos) << imagesInSequences;
  EXPECT_NE(imagesInSequences.find("backward_flops_per_sequence"), std::string::npos) << imagesInSequences;
  const std::string sequencesInImages = errorOf(smallModel("backward_flops_per_sequence", false));
  EXPECT_NE(sequencesInImages.find("$.gradients[0].backward_flops_per_sequence"), std::string::npos) << sequencesInImages;
  nlohmann::json json = smallModel("backward_flops_per_sequence", true);
  json["forward_flops_per_image"] = 1e9;
  EXPECT_NE(errorOf(json).find("$.forward_flops_per_image"), std::string::npos) << errorOf(json);
  json = smallModel("backward_flops_per_sequence", true);
  json["sequence_length"] = 0;
  EXPECT_NE(errorOf(json).find("$.sequence_length"), std::string::npos) << errorOf(json);
}

}  // namespace
}  // namespace ddl
