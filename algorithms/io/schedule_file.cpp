#include "algorithms/io/schedule_file.hpp"

#include <nlohmann/json.hpp>

#include "algorithms/io/schedule_json.hpp"
#include "algorithms/verify/verifier.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"

namespace ddl {

Schedule loadVerifiedSchedule(const std::string& path, const std::string& field) {
  Schedule schedule = scheduleFromJson(readJsonFile(path), path);
  const VerificationReport report = verify(schedule);
  if (!report.ok())
    throw InvalidArgument(field, path + ": not a correct " + std::string(toString(schedule.spec().kind)) + " (" +
                                     std::string(toString(report.problem)) + "): " + report.message +
                                     " (ddlsim schedule --from " + path + " --verify says more)");
  return schedule;
}

}  // namespace ddl
