#include "algorithms/io/msccl_xml.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <ostream>

#include "common/invalid_argument.hpp"
#include "common/xml_text.hpp"

namespace ddl {
namespace {

struct XmlStep {
  const char* type = "nop";
  Elements offset = -1;  // in chunks; -1 for a nop
  Elements count = 0;    // in chunks
  int dependencyThreadblock = -1;
  int dependencyStep = -1;
  bool dependedOn = false;
};

struct Threadblock {
  Rank send = -1;
  Rank receive = -1;
  Channel channel = 0;
  std::vector<XmlStep> steps;
};

const char* mscclType(StepKind kind) {
  switch (kind) {
    case StepKind::Send: return "s";
    case StepKind::ReceiveCopy: return "r";
    case StepKind::ReceiveReduce: return "rrc";
  }
  return "nop";
}

// The chunk: the largest size that divides the buffer and every step's offset and count.
struct Chunking {
  Elements chunk = 0;
  int channels = 1;
};

Chunking chunkingOf(const Schedule& schedule) {
  Chunking result{schedule.spec().elements, 1};
  for (Rank r = 0; r < schedule.ranks(); ++r) {
    const Program program = schedule.program(r);
    for (const Step& step : program.steps()) {
      // A step of no elements (a channel's share of a buffer smaller than the channels' blocks) is a cnt="0"
      // that MSCCL's parser cannot take (it indexes by cnt - 1): refused rather than written.
      if (step.range.count == 0)
        throw InvalidArgument("--bytes", std::to_string(static_cast<long long>(schedule.spec().bytes())) + " bytes leave rank " + std::to_string(r) +
                                             " a step of no elements on channel " + std::to_string(step.channel) +
                                             ", which MSCCL's XML cannot hold (a transfer of cnt=\"0\"): give a larger buffer "
                                             "or fewer channels");
      result.chunk = std::gcd(result.chunk, std::gcd(step.range.offset, step.range.count));
      result.channels = std::max(result.channels, step.channel + 1);
    }
  }
  return result;
}

// The program's threadblocks, sorted by (send, recv, chan) as msccl-tools sorts them, with their steps.
std::vector<Threadblock> threadblocksOf(const Program& program, Elements chunk) {
  std::vector<int> order(static_cast<std::size_t>(program.streamCount()));
  std::iota(order.begin(), order.end(), 0);
  auto peers = [&](int stream) {
    const StreamKey& key = program.streamKey(stream);
    return std::tuple(key.sending ? key.peer : -1, key.sending ? -1 : key.peer, key.channel);
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) { return peers(a) < peers(b); });
  std::vector<int> threadblockOf(order.size());
  std::vector<Threadblock> threadblocks;
  for (int stream : order) {
    threadblockOf[static_cast<std::size_t>(stream)] = static_cast<int>(threadblocks.size());
    auto [send, receive, channel] = peers(stream);
    threadblocks.push_back({send, receive, channel, {}});
  }

  std::vector<int> positionOf(static_cast<std::size_t>(program.size()));
  // Per threadblock: the last step of each other threadblock it has already waited for.
  std::vector<std::map<int, int>> waited(threadblocks.size());
  for (StepIndex index = 0; index < program.size(); ++index) {
    const Step& step = program.step(index);
    const int tb = threadblockOf[static_cast<std::size_t>(step.stream)];
    // A threadblock runs its steps in order, so waiting for step k of another implies its earlier steps:
    // of each other threadblock only the latest step waited for counts, and only if no earlier step of
    // this threadblock waited for it or a later one.
    std::map<int, int> latest;  // other threadblock -> its latest step this step waits for
    for (StepIndex d : program.dependenciesOf(index)) {
      const int dependencyTb = threadblockOf[static_cast<std::size_t>(program.step(d).stream)];
      if (dependencyTb == tb) continue;
      int& step = latest.try_emplace(dependencyTb, -1).first->second;
      step = std::max(step, positionOf[static_cast<std::size_t>(d)]);
    }
    std::vector<std::pair<int, int>> dependencies;
    for (auto [dependencyTb, dependencyStep] : latest) {
      auto [it, inserted] = waited[static_cast<std::size_t>(tb)].try_emplace(dependencyTb, dependencyStep);
      if (!inserted) {
        if (it->second >= dependencyStep) continue;
        it->second = dependencyStep;
      }
      dependencies.emplace_back(dependencyTb, dependencyStep);
    }
    std::vector<XmlStep>& steps = threadblocks[static_cast<std::size_t>(tb)].steps;
    auto dependOn = [&](XmlStep& xml, std::pair<int, int> dependency) {
      xml.dependencyThreadblock = dependency.first;
      xml.dependencyStep = dependency.second;
      threadblocks[static_cast<std::size_t>(dependency.first)].steps[static_cast<std::size_t>(dependency.second)]
          .dependedOn = true;
    };
    for (std::size_t extra = 1; extra < dependencies.size(); ++extra) {
      XmlStep nop;
      dependOn(nop, dependencies[extra]);
      steps.push_back(nop);
    }
    XmlStep xml{mscclType(step.kind), step.range.offset / chunk, step.range.count / chunk};
    if (!dependencies.empty()) dependOn(xml, dependencies.front());
    positionOf[static_cast<std::size_t>(index)] = static_cast<int>(steps.size());
    steps.push_back(xml);
  }
  return threadblocks;
}

void writeStep(std::ostream& out, int position, const XmlStep& step) {
  const bool nop = step.offset < 0;
  out << "      <step s=\"" << position << "\" type=\"" << step.type << "\" srcbuf=\"i\" srcoff=\"" << step.offset
      << "\" dstbuf=\"" << (nop ? "o" : "i") << "\" dstoff=\"" << step.offset << "\" cnt=\"" << step.count
      << "\" depid=\"" << step.dependencyThreadblock << "\" deps=\"" << step.dependencyStep << "\" hasdep=\""
      << (step.dependedOn ? 1 : 0) << "\"/>\n";
}

}  // namespace

MscclExport writeMscclXml(std::ostream& out, const Schedule& schedule) {
  const CollectiveSpec& spec = schedule.spec();
  if (spec.kind != CollectiveKind::Allreduce)
    throw InvalidArgument("--msccl-xml", "exports allreduce schedules only: MSCCL's in-place " +
                                             std::string(toString(spec.kind)) +
                                             " aliases one rank's block of a buffer into another buffer");
  if (spec.elements == 0) throw InvalidArgument("--msccl-xml", "an empty buffer cuts into no chunks");
  if (spec.switches > 0)
    throw InvalidArgument("--msccl-xml", schedule.description() + " reduces in a switch, and MSCCL's XML holds GPUs only "
                                                                  "(ngpus): NVLS is NCCL's own, not an MSCCL program");
  const Chunking chunking = chunkingOf(schedule);
  const Elements chunks = spec.elements / chunking.chunk;

  MscclExport result;
  std::map<Channel, int> mostThreadblocks;  // channel -> most threadblocks one GPU puts on it
  out << "<algo name=\"" << xmlAttribute(schedule.description(), "the schedule's description") << "\" proto=\"Simple\" nchannels=\"" << chunking.channels
      << "\" nchunksperloop=\"" << chunks << "\" ngpus=\"" << spec.ranks << "\" coll=\"allreduce\" inplace=\"1\">\n";
  for (Rank r = 0; r < spec.ranks; ++r) {
    const std::vector<Threadblock> threadblocks = threadblocksOf(schedule.program(r), chunking.chunk);
    out << "  <gpu id=\"" << r << "\" i_chunks=\"" << chunks << "\" o_chunks=\"" << chunks << "\" s_chunks=\"0\">\n";
    std::map<Channel, int> perChannel;
    for (std::size_t id = 0; id < threadblocks.size(); ++id) {
      const Threadblock& tb = threadblocks[id];
      ++perChannel[tb.channel];
      if (static_cast<int>(tb.steps.size()) > kMscclMaxStepsPerThreadblock && result.runtimeLimitsExceeded.size() < 8)
        result.runtimeLimitsExceeded.push_back("gpu " + std::to_string(r) + " threadblock " + std::to_string(id) +
                                               " has " + std::to_string(tb.steps.size()) + " steps (the MSCCL runtime takes " +
                                               std::to_string(kMscclMaxStepsPerThreadblock) + ")");
      out << "    <tb id=\"" << id << "\" send=\"" << tb.send << "\" recv=\"" << tb.receive << "\" chan=\"" << tb.channel
          << "\">\n";
      for (std::size_t s = 0; s < tb.steps.size(); ++s) writeStep(out, static_cast<int>(s), tb.steps[s]);
      out << "    </tb>\n";
    }
    out << "  </gpu>\n";
    for (auto [channel, count] : perChannel) mostThreadblocks[channel] = std::max(mostThreadblocks[channel], count);
  }
  out << "</algo>\n";
  for (auto [channel, count] : mostThreadblocks)
    if (count > kMscclMaxThreadblocksPerChannel)
      result.runtimeLimitsExceeded.push_back("a GPU puts " + std::to_string(count) + " threadblocks on channel " +
                                             std::to_string(channel) + " (the MSCCL runtime takes " +
                                             std::to_string(kMscclMaxThreadblocksPerChannel) + ")");
  return result;
}

}  // namespace ddl
