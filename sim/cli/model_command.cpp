#include "sim/cli/model_command.hpp"

#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/cli_checks.hpp"
#include "common/json_reader.hpp"
#include "common/output_file.hpp"
#include "models/profile_import.hpp"

namespace ddl {
namespace {

struct ImportArguments {
  std::string profile;
  std::string gpu;
  std::string name;
  std::string out;
};

int runImport(const ImportArguments& args) {
  const nlohmann::json model = modelFromProfile(readJsonFile(args.profile), args.profile, args.gpu, args.name);
  writeOutput(args.out, [&](std::ostream& out) { out << model.dump(1) << "\n"; });
  if (!args.out.empty())
    std::cerr << "ddlsim model import: " << model["name"].get<std::string>() << ", " << model["gradients"].size()
              << " gradients, as GPU '" << args.gpu << "', written to " << args.out << "\n";
  return 0;
}

}  // namespace

void addModelCommand(CLI::App& app, int& exitCode) {
  CLI::App* model = app.add_subcommand("model", "Make model files.");
  model->require_subcommand(1);
  auto args = std::make_shared<ImportArguments>();
  CLI::App* import = model->add_subcommand(
      "import", "A model file from a PyTorch profile of one training step (python3 -m ddlscale_torch.profile): the gradients "
                "in backprop order with their measured backward times, the forward pass and the optimizer step as measured.");
  import->add_option("profile", args->profile, "The profile (JSON)")->required()->check(readableFile());
  import->add_option("--gpu", args->gpu, "The GPU type the profile is filed under, as the topology's node.gpu names it "
                                         "(the emulated cluster's: cpu-rank)")
      ->required()
      ->check(utf8Text());
  import->add_option("--name", args->name, "The model's name (default: the profile's model)")->check(utf8Text());
  import->add_option("--out", args->out, "Write the model file here (default: standard output)")->check(writableFile());
  import->callback([args, &exitCode] { exitCode = runImport(*args); });
}

}  // namespace ddl
