#include "algorithms/training/scaling_point.hpp"

#include "common/build_info.hpp"

namespace ddl {

RunDescription describeRun(const std::string& tool, const std::string& transport) {
  RunDescription run;
  run.tool = tool;
  run.version = ddlscaleVersion();
  run.commit = ddlscaleCommit();
  run.transport = transport;
  return run;
}

}  // namespace ddl
