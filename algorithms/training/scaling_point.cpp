#include "algorithms/training/scaling_point.hpp"

#include "common/build_info.hpp"

namespace ddl {

RunDescription describeRun(const std::string& tool, const std::string& transport) {
  return {tool, std::string(ddlscaleVersion()), std::string(ddlscaleCommit()), transport, std::nullopt, std::nullopt, std::nullopt};
}

}  // namespace ddl
