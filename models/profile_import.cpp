#include "models/profile_import.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"
#include "models/model.hpp"

namespace ddl {

nlohmann::json modelFromProfile(const nlohmann::json& profile, const std::string& path, const std::string& gpu,
                                const std::string& name) {
  const JsonReader root(path);
  // corun (the machine's throughput with several copies at once) belongs to a topology, not to the model.
  root.allowOnly(profile, {"source", "model", "torch", "threads", "batch", "image_size", "sequence_length", "precision", "steps", "iteration_s",
                           "forward_s", "optimizer_s", "gradients", "corun"});
  const std::string model = root.stringAt(profile, "model");
  const auto batch = root.integerAt(profile, "batch", 1, 1 << 20);
  const std::string precision = root.has(profile, "precision") ? root.stringAt(profile, "precision") : "fp32";
  if (precision != "fp32") root.at("precision").fail("'" + precision + "': ddlscale_torch.profile measures fp32 steps only");
  const double iteration = root.numberAt(profile, "iteration_s", 1e-9, 1e6);
  const double forward = root.numberAt(profile, "forward_s", 0, 1e6);
  const double optimizer = root.numberAt(profile, "optimizer_s", 0, 1e6);

  const JsonReader gradientsAt = root.at("gradients");
  const auto& list = gradientsAt.array(root.member(profile, "gradients"));
  if (list.empty()) gradientsAt.fail("a profile needs at least one gradient");
  nlohmann::json tensors = nlohmann::json::array();
  nlohmann::json backward = nlohmann::json::array();
  std::set<std::string> names;
  double total = forward + optimizer;
  long long parameters = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonReader at = gradientsAt.at(i);
    at.allowOnly(list[i], {"name", "elements", "backward_s"});
    const std::string tensor = at.stringAt(list[i], "name");
    if (!names.insert(tensor).second) at.at("name").fail("'" + tensor + "' comes twice: each parameter's gradient is computed once");
    const auto elements = at.integerAt(list[i], "elements", 1, 1LL << 40);
    const double seconds = at.numberAt(list[i], "backward_s", 0, 1e6);
    tensors.push_back({{"name", tensor}, {"elements", elements}});
    backward.push_back(seconds);
    total += seconds;
    parameters += elements;
  }
  if (!phasesMakeTheIteration(total, iteration))
    root.at("iteration_s").fail(std::to_string(iteration) + ", but forward_s, the gradients' backward_s and optimizer_s add up to " +
                                std::to_string(total));

  std::string how = "measured";
  if (root.has(profile, "source")) how += " by " + root.stringAt(profile, "source");
  if (root.has(profile, "torch")) how += ", PyTorch " + root.stringAt(profile, "torch");
  if (root.has(profile, "threads")) how += ", " + std::to_string(root.integerAt(profile, "threads", 1, 1 << 20)) + " host thread(s)";
  if (root.has(profile, "image_size")) {
    const std::string side = std::to_string(root.integerAt(profile, "image_size", 1, 1 << 20));
    how += ", " + side + "x" + side + " images";
  }
  if (root.has(profile, "sequence_length"))
    how += ", sequences of " + std::to_string(root.integerAt(profile, "sequence_length", 1, 1 << 24)) + " tokens";
  if (root.has(profile, "steps")) how += ", median of " + std::to_string(root.integerAt(profile, "steps", 1, 1 << 30)) + " steps";
  const std::string key = precision + "-" + std::to_string(batch);
  nlohmann::json result = {
      {"name", name.empty() ? model : name},
      {"description", model + " as it was measured training on one process (" + how + "), imported by ddlsim model import"},
      {"parameters", parameters},
      {"gradients", std::move(tensors)},
      {"gpus",
       {{gpu,
         {{"profiles",
           {{key,
             {{"batch", batch},
              {"iteration_s", total},
              {"forward_s", forward},
              {"backward_s", std::move(backward)},
              {"optimizer_s", optimizer},
              {"source", how + " (" + path + ")"},
              {"confidence", "measured"}}}}}}}}},
      {"sources", {{"gradients", "the order and sizes in which backward produced the gradients, measured (" + path + ")"}}}};
  Model::fromJson(result, path + " imported");  // what is written must load
  return result;
}

}  // namespace ddl
