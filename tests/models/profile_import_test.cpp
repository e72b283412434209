// `ddlsim model import`: a PyTorch profile of one training step becomes a model file whose workload is the
// step as measured, phase by phase and gradient by gradient, in the order backward produced them; a profile
// or model that does not add up is refused naming its field.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/invalid_argument.hpp"
#include "models/model.hpp"
#include "models/profile_import.hpp"

namespace ddl {
namespace {

nlohmann::json profile() {
  return nlohmann::json::parse(R"({"source": "ddlscale_torch.profile", "model": "tiny", "torch": "1.13.0a0", "threads": 1,
      "batch": 16, "image_size": 32, "precision": "fp32", "steps": 10, "iteration_s": 0.1,
      "forward_s": 0.03, "optimizer_s": 0.02,
      "gradients": [{"name": "fc.bias", "elements": 10, "backward_s": 0.01},
                    {"name": "fc.weight", "elements": 5120, "backward_s": 0.015},
                    {"name": "conv.weight", "elements": 432, "backward_s": 0.025}]})");
}

// The field an InvalidArgument names, after the file's name.
std::string refusedField(const std::function<void()>& call) {
  try {
    call();
  } catch (const InvalidArgument& error) {
    const std::string field = error.field();
    return field.substr(field.find(": ") + 2);
  }
  return "(no error)";
}

TEST(ProfileImport, TheWorkloadIsTheStepAsMeasured) {
  const nlohmann::json file = modelFromProfile(profile(), "p.json", "cpu-rank", "tiny-32px");
  const Model model = Model::fromJson(file, "tiny.json");
  EXPECT_EQ(model.name(), "tiny-32px");
  EXPECT_EQ(model.parameters(), 10 + 5120 + 432);
  const TrainingWorkload workload = model.workload("cpu-rank", 16);
  EXPECT_DOUBLE_EQ(workload.forwardSeconds, 0.03);
  EXPECT_DOUBLE_EQ(workload.optimizerSeconds, 0.02);
  ASSERT_EQ(workload.gradients.size(), 3u);
  const char* names[] = {"fc.bias", "fc.weight", "conv.weight"};
  const double seconds[] = {0.01, 0.015, 0.025};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(workload.gradients[i].name, names[i]);
    EXPECT_DOUBLE_EQ(workload.gradients[i].backwardSeconds, seconds[i]);
  }
  EXPECT_NEAR(workload.computeSeconds(), 0.1, 1e-15);
  EXPECT_THROW(model.workload("cpu-rank", 32), InvalidArgument) << "only the measured batch";
}

TEST(ProfileImport, ATransformersProfileSaysItsSequenceLengthWhereAnImageSizeWouldBe) {
  nlohmann::json tokens = profile();
  tokens.erase("image_size");
  tokens["sequence_length"] = 64;
  const nlohmann::json file = modelFromProfile(tokens, "p.json", "cpu-rank", "gpt");
  EXPECT_NE(file["description"].get<std::string>().find("sequences of 64 tokens"), std::string::npos) << file["description"];
  tokens["sequence_length"] = 0;
  EXPECT_EQ(refusedField([&] { modelFromProfile(tokens, "p.json", "cpu-rank", ""); }), "$.sequence_length");
}

TEST(ProfileImport, AProfileThatDoesNotAddUpIsRefusedNamingTheField) {
  EXPECT_EQ(refusedField([] { modelFromProfile(profile(), "p.json", "cpu-rank", ""); }), "(no error)");
  nlohmann::json bad = profile();
  bad["iteration_s"] = 0.2;
  EXPECT_EQ(refusedField([&] { modelFromProfile(bad, "p.json", "cpu-rank", ""); }), "$.iteration_s");
  bad = profile();
  bad["gradients"][2]["name"] = "fc.bias";
  EXPECT_EQ(refusedField([&] { modelFromProfile(bad, "p.json", "cpu-rank", ""); }), "$.gradients[2].name");
  bad = profile();
  bad["gradients"][1]["elements"] = 0;
  EXPECT_EQ(refusedField([&] { modelFromProfile(bad, "p.json", "cpu-rank", ""); }), "$.gradients[1].elements");
  bad = profile();
  bad["precision"] = "bf16";
  EXPECT_EQ(refusedField([&] { modelFromProfile(bad, "p.json", "cpu-rank", ""); }), "$.precision");
  bad = profile();
  bad["colour"] = "red";
  EXPECT_EQ(refusedField([&] { modelFromProfile(bad, "p.json", "cpu-rank", ""); }), "$.colour");
}

TEST(ProfileImport, AModelsBreakdownMustHaveATimePerTensorAndAddUp) {
  nlohmann::json file = modelFromProfile(profile(), "p.json", "cpu-rank", "");
  nlohmann::json& measured = file["gpus"]["cpu-rank"]["profiles"]["fp32-16"];
  measured["backward_s"].erase(0);
  EXPECT_EQ(refusedField([&] { Model::fromJson(file, "m.json"); }), "$.gpus.cpu-rank.profiles.fp32-16.backward_s");
  file = modelFromProfile(profile(), "p.json", "cpu-rank", "");
  file["gpus"]["cpu-rank"]["profiles"]["fp32-16"]["iteration_s"] = 0.11;
  EXPECT_EQ(refusedField([&] { Model::fromJson(file, "m.json"); }), "$.gpus.cpu-rank.profiles.fp32-16.iteration_s");
  file = modelFromProfile(profile(), "p.json", "cpu-rank", "");
  file["gpus"]["cpu-rank"]["profiles"]["fp32-16"].erase("optimizer_s");
  EXPECT_EQ(refusedField([&] { Model::fromJson(file, "m.json"); }), "$.gpus.cpu-rank.profiles.fp32-16");
}

TEST(ProfileImport, WithoutABreakdownAProfileStillNeedsFlopsAndMemory) {
  nlohmann::json file = modelFromProfile(profile(), "p.json", "cpu-rank", "");
  nlohmann::json& measured = file["gpus"]["cpu-rank"]["profiles"]["fp32-16"];
  for (const char* key : {"forward_s", "backward_s", "optimizer_s"}) measured.erase(key);
  EXPECT_EQ(refusedField([&] { Model::fromJson(file, "m.json"); }), "$.gradients");
  for (auto& tensor : file["gradients"]) tensor["backward_flops_per_image"] = 1000;
  EXPECT_EQ(refusedField([&] { Model::fromJson(file, "m.json"); }), "$.gpus.cpu-rank");
  file["gpus"]["cpu-rank"]["memory"] = {{"bandwidth_Bps", 1e10}};
  EXPECT_EQ(refusedField([&] { Model::fromJson(file, "m.json"); }), "(no error)");
}

}  // namespace
}  // namespace ddl
