#pragma once
// `ddlsim model import PROFILE --gpu NAME [--name NAME] [--out FILE]`: a model file from a PyTorch profile of
// one training step (`python3 -m ddlscale_torch.profile`), so that a scenario simulates the model as measured
// (models/profile_import.hpp).

#include <CLI/CLI.hpp>

namespace ddl {

void addModelCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
