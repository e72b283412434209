#include "algorithms/training/scaling_point.hpp"

#include "common/build_info.hpp"

namespace ddl {

std::string precisionName(int elementBytes) {
  switch (elementBytes) {
    case 4: return "fp32";
    case 8: return "fp64";
    case 2: return "16-bit";
    default: return std::to_string(8 * elementBytes) + "-bit";
  }
}

RunDescription describeRun(const std::string& tool, const std::string& transport) {
  return {tool, std::string(ddlscaleVersion()), std::string(ddlscaleCommit()), transport, std::nullopt, std::nullopt};
}

}  // namespace ddl
