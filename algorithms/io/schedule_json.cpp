#include "algorithms/io/schedule_json.hpp"

#include <limits>
#include <ostream>

#include "common/json_reader.hpp"
#include "algorithms/schedule/collective.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {
namespace {

std::optional<StepKind> parseStepKind(std::string_view name) {
  for (auto kind : {StepKind::Send, StepKind::ReceiveReduce, StepKind::ReceiveCopy})
    if (toString(kind) == name) return kind;
  return std::nullopt;
}


Program readProgram(const JsonReader& reader, const nlohmann::json& json, Rank rank, const CollectiveSpec& spec) {
  const Elements elements = spec.elements;
  reader.allowOnly(json, {"rank", "steps"});
  if (reader.integerAt(json, "rank", 0, kMaxRanks - 1) != rank) reader.at("rank").fail("expected " + std::to_string(rank));
  const JsonReader stepsReader = reader.at("steps");
  const auto& stepsJson = stepsReader.array(reader.member(json, "steps"));
  std::vector<Step> steps;
  std::vector<StepIndex> dependencies;
  for (std::size_t i = 0; i < stepsJson.size(); ++i) {
    const JsonReader r = stepsReader.at(i);
    const nlohmann::json& s = stepsJson[i];
    r.allowOnly(s, {"op", "peer", "offset", "count", "channel", "after"});
    if (i >= static_cast<std::size_t>(kMaxStepsPerProgram))
      r.fail("a program has at most " + std::to_string(kMaxStepsPerProgram) + " steps");
    Step step;
    const std::string op = r.at("op").string(r.member(s, "op"));
    const auto kind = parseStepKind(op);
    if (!kind) r.at("op").fail("'" + op + "' is not send, receive-reduce or receive-copy");
    step.kind = *kind;
    step.peer = static_cast<Rank>(r.at("peer").integer(r.member(s, "peer"), 0, spec.participants() - 1));
    if (step.peer == rank) r.at("peer").fail("a participant does not send to or receive from itself");
    step.range.offset = r.at("offset").integer(r.member(s, "offset"), 0, elements);
    step.range.count = r.at("count").integer(r.member(s, "count"), 0, elements - step.range.offset);
    step.channel = s.contains("channel")
                       ? static_cast<Channel>(r.at("channel").integer(s["channel"], 0, std::numeric_limits<Channel>::max()))
                       : Channel{0};
    step.firstDependency = static_cast<std::int32_t>(dependencies.size());
    if (s.contains("after")) {
      const JsonReader after = r.at("after");
      const auto& list = after.array(s["after"]);
      for (std::size_t d = 0; d < list.size(); ++d)
        dependencies.push_back(static_cast<StepIndex>(after.at(d).integer(list[d], 0, static_cast<std::int64_t>(i) - 1)));
    }
    if (dependencies.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      r.at("after").fail("a program's dependencies number at most 2^31 - 1");
    step.dependencyCount = static_cast<std::int32_t>(dependencies.size()) - step.firstDependency;
    steps.push_back(step);
  }
  return Program(rank, elements, std::move(steps), std::move(dependencies));
}

}  // namespace

nlohmann::json programToJson(const Program& program) {
  nlohmann::json steps = nlohmann::json::array();
  for (StepIndex index = 0; index < program.size(); ++index) {
    const Step& step = program.step(index);
    auto dependencies = program.dependenciesOf(index);
    steps.push_back({{"op", toString(step.kind)},
                     {"peer", step.peer},
                     {"offset", step.range.offset},
                     {"count", step.range.count},
                     {"channel", step.channel},
                     {"after", std::vector<StepIndex>(dependencies.begin(), dependencies.end())}});
  }
  return {{"rank", program.rank()}, {"steps", std::move(steps)}};
}

void writeScheduleJson(std::ostream& out, const Schedule& schedule, std::optional<Rank> onlyRank) {
  const CollectiveSpec& spec = schedule.spec();
  nlohmann::json header = {{"collective", toString(spec.kind)},
                           {"description", schedule.description()},
                           {"ranks", spec.ranks},
                           {"elements", spec.elements},
                           {"element_bytes", spec.elementBytes}};
  if (spec.switches > 0) header["switches"] = spec.switches;  // programs ranks .. ranks + switches - 1 are theirs
  std::string text = header.dump();
  text.pop_back();  // reopen the object to stream the programs into it
  out << text << ",\"programs\":[";
  const Rank first = onlyRank.value_or(0);
  const Rank last = onlyRank ? *onlyRank : spec.participants() - 1;
  for (Rank rank = first; rank <= last; ++rank) out << (rank == first ? "\n" : ",\n") << programToJson(schedule.program(rank)).dump();
  out << "\n]}\n";
}

Schedule scheduleFromJson(const nlohmann::json& json, const std::string& source) {
  const JsonReader root(source);
  root.allowOnly(json, {"collective", "description", "ranks", "switches", "elements", "element_bytes", "programs"});
  CollectiveSpec spec;
  const std::string collective = root.at("collective").string(root.member(json, "collective"));
  const auto kind = parseCollectiveKind(collective);
  if (!kind) root.at("collective").fail("'" + collective + "' is not allreduce, reduce-scatter or all-gather");
  spec.kind = *kind;
  spec.ranks = static_cast<int>(root.at("ranks").integer(root.member(json, "ranks"), 1, kMaxRanks));
  if (json.contains("switches"))
    spec.switches = static_cast<int>(root.at("switches").integer(json["switches"], 0, kMaxRanks - spec.ranks));
  spec.elementBytes = json.contains("element_bytes")
                          ? static_cast<int>(root.at("element_bytes").integer(json["element_bytes"], 1, 1024))
                          : 4;
  spec.elements = root.at("elements").integer(root.member(json, "elements"), 0, kMaxBufferBytes / spec.elementBytes);
  const std::string description = json.contains("description") ? root.at("description").string(json["description"]) : source;
  const JsonReader programsReader = root.at("programs");
  const auto& programsJson = programsReader.array(root.member(json, "programs"));
  if (programsJson.size() != static_cast<std::size_t>(spec.participants()))
    programsReader.fail("has " + std::to_string(programsJson.size()) + " programs for " + std::to_string(spec.ranks) + " ranks" +
                        (spec.switches > 0 ? " and " + std::to_string(spec.switches) + " switches" : ""));
  std::vector<Program> programs;
  for (std::size_t rank = 0; rank < programsJson.size(); ++rank)
    programs.push_back(readProgram(programsReader.at(rank), programsJson[rank], static_cast<Rank>(rank), spec));
  return Schedule::fromPrograms(spec, description, std::move(programs));
}

}  // namespace ddl
