#pragma once
// Schedules as JSON, for inspection and for verifying schedules written by hand or by other tools:
//
// {"collective": "allreduce", "description": "ring", "ranks": 2, "elements": 4, "element_bytes": 4,
//  "programs": [{"rank": 0, "steps": [{"op": "send", "peer": 1, "offset": 2, "count": 2, "channel": 0,
//                                      "after": []}, ...]}, ...]}
//
// "op" is send, receive-reduce or receive-copy; "after" lists the indices of earlier steps of the same
// rank (in other streams) that must complete first. Message sequence numbers follow from the step order.

#include <iosfwd>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/schedule/schedule.hpp"

namespace ddl {

nlohmann::json programToJson(const Program& program);

// Writes the schedule one program at a time, so that large schedules need not be held whole; with
// `onlyRank`, just that rank's program.
void writeScheduleJson(std::ostream& out, const Schedule& schedule, std::optional<Rank> onlyRank = std::nullopt);

// Throws InvalidArgument whose field is "<source>: <json path>" for anything malformed. Semantic checks
// (matching, races, the result) are the verifier's.
Schedule scheduleFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace ddl
