#pragma once
// Where ddlscale finds its own files: the topologies, models, GPU and job time factors and tuning tables a name
// stands for, and the analysis scripts it runs. They live in one tree: $DDLSCALE_DATA_DIR if set (an
// install, a test's copy), else the source tree the program was built from.

#include <filesystem>
#include <string>

namespace ddl {

// The tree: $DDLSCALE_DATA_DIR, or the source tree.
std::filesystem::path dataDirectory();

// The file for `nameOrPath` of `kind` ("topologies", "models", ...: a folder of the tree): a path
// (relative to `relativeTo`'s folder) if it contains '/' or ends in .json, else <tree>/<kind>/<name>.json.
// InvalidArgument(field, ...) if there is no such file: for a name, the message lists the known names, and
// suggests the nearest.
std::string findDataFile(const std::string& kind, const std::string& nameOrPath, const std::string& relativeTo,
                         const std::string& field);

}  // namespace ddl
