#include "algorithms/io/msccl_xml_reader.hpp"

#include <algorithm>
#include <array>

#include "algorithms/io/msccl_xml_tags.hpp"

namespace ddl {
namespace {

using msccl_xml::Attributes;
using msccl_xml::isNameChar;
using msccl_xml::isSpace;
using msccl_xml::Location;

// Each element's attributes, in the order the writer writes them.
constexpr std::array<std::string_view, 7> kAlgoAttributes{"name", "proto", "nchannels", "nchunksperloop", "ngpus", "coll", "inplace"};
constexpr std::array<std::string_view, 4> kGpuAttributes{"id", "i_chunks", "o_chunks", "s_chunks"};
constexpr std::array<std::string_view, 4> kTbAttributes{"id", "send", "recv", "chan"};
constexpr std::array<std::string_view, 10> kStepAttributes{"s",      "type", "srcbuf", "srcoff", "dstbuf",
                                                           "dstoff", "cnt",  "depid",  "deps",   "hasdep"};
enum StepAttribute { kS, kType, kSrcbuf, kSrcoff, kDstbuf, kDstoff, kCnt, kDepid, kDeps, kHasdep };

MscclStepType stepType(const Attributes& attributes) {
  if (attributes.is(kType, "s")) return MscclStepType::Send;
  if (attributes.is(kType, "r")) return MscclStepType::Receive;
  if (attributes.is(kType, "rrc")) return MscclStepType::ReceiveReduce;
  if (attributes.is(kType, "nop")) return MscclStepType::Nop;
  attributes.fail("has type=\"" + std::string(attributes.text(kType)) + "\", none of s, r, rrc, nop");
}

// A dependency as written, resolved once its GPU is read whole: it may name a later threadblock.
struct WrittenDependency {
  std::int32_t step;  // the waiting step, an index of MscclDocument::steps
  Location where;
  std::int32_t threadblock, threadblockStep;  // depid, deps
};

}  // namespace

struct MscclXmlReader::State {
  // Reads the complete tags at the start of `text` and returns how many bytes they and the space between
  // them take: the rest is an unfinished tag, kept for the next piece.
  std::size_t scan(std::string_view text) {
    for (std::size_t at = 0;;) {
      const std::size_t open = text.find('<', at);
      const std::string_view between = text.substr(at, open == std::string_view::npos ? open : open - at);
      if (!std::all_of(between.begin(), between.end(), isSpace)) Location{}.fail("text outside any element at byte " + std::to_string(scanned + at));
      const std::size_t close = open == std::string_view::npos ? open : text.find('>', open);
      if (close == std::string_view::npos) return open == std::string_view::npos ? text.size() : open;
      tag(text.substr(open + 1, close - open - 1));
      at = close + 1;
    }
  }

  // `text`: between '<' and '>'. Each depth holds one element: <algo> once at the top, then <gpu>, <tb>,
  // <step>; declarations, comments and anything else are refused.
  void tag(std::string_view text) {
    static constexpr std::array<std::string_view, 4> kNesting{"algo", "gpu", "tb", "step"};
    const bool closing = text.starts_with('/'), selfClosing = !closing && text.ends_with('/');
    text = text.substr(closing ? 1 : 0, text.size() - (closing || selfClosing ? 1 : 0));
    const std::string_view name = text.substr(0, static_cast<std::size_t>(std::find_if_not(text.begin(), text.end(), isNameChar) - text.begin()));
    if (closing) {
      if (depth == 0 || name != kNesting[depth - 1] || name.size() != text.size()) location.fail("</" + std::string(text) + "> closes no open element");
      if (--depth == 1) closeGpu();
      return;
    }
    const bool expected = depth < kNesting.size() && !(depth == 0 && algoRead);
    if (!expected || name != kNesting[depth])
      location.fail("<" + std::string(name.empty() ? text.substr(0, 16) : name) + "> where the format has " +
                    (expected ? "<" + std::string(kNesting[depth]) + ">" : std::string("nothing")));
    locate();
    const Attributes attributes(name, text.substr(name.size()),
                                std::array<std::span<const std::string_view>, 4>{kAlgoAttributes, kGpuAttributes, kTbAttributes, kStepAttributes}[depth],
                                location);
    if (depth == 0) algo(attributes);
    else if (depth == 1) gpu(attributes);
    else if (depth == 2) threadblock(attributes);
    else step(attributes);
    if (!selfClosing) ++depth;
    else if (depth == 1) closeGpu();
  }

  // The element about to be read is the next of its parent's: its faults, the attributes' included, name it.
  void locate() {
    if (depth == 1) location = {static_cast<int>(document.gpus.size())};
    if (depth == 2) location.threadblock = document.gpus.back().threadblockCount, location.step = -1;
    if (depth == 3) location.step = document.threadblocks.back().stepCount;
  }

  void algo(const Attributes& attributes) {
    const std::string_view proto = attributes.text(1);
    if (proto != "Simple" && proto != "LL" && proto != "LL128") attributes.fail("has proto=\"" + std::string(proto) + "\"");
    document.channels = attributes.integer(2);
    document.chunks = attributes.integer(3);
    declaredGpus = attributes.integer(4);
    if (document.channels < 1 || document.chunks < 1 || document.chunks >= (1 << 30) || declaredGpus < 1)
      attributes.fail("needs a channel, a gpu, and one to 2^30 chunks");
    if (attributes.text(5) != "allreduce" || attributes.text(6) != "1") attributes.fail("is no in-place allreduce, the one collective the checker knows");
    algoRead = true;
  }

  void gpu(const Attributes& attributes) {
    if (attributes.integer(0) != location.gpu) attributes.fail("has id=\"" + std::string(attributes.text(0)) + "\"");
    if (attributes.integer(1) != document.chunks || attributes.integer(2) != document.chunks || attributes.integer(3) < 0)
      attributes.fail("has i_chunks or o_chunks other than nchunksperloop, or a negative s_chunks");
    document.gpus.push_back({static_cast<int>(document.threadblocks.size()), 0});
    firstStepOfGpu = static_cast<std::int32_t>(document.steps.size());
  }

  void threadblock(const Attributes& attributes) {
    MscclGpu& gpu = document.gpus.back();
    if (attributes.integer(0) != location.threadblock) attributes.fail("has id=\"" + std::string(attributes.text(0)) + "\"");
    const MscclThreadblock threadblock{attributes.integer(1), attributes.integer(2), attributes.integer(3),
                                       static_cast<std::int32_t>(document.steps.size()), 0};
    for (int peer : {threadblock.sendPeer, threadblock.receivePeer})
      if (peer < -1 || peer >= declaredGpus || peer == location.gpu)
        attributes.fail("names gpu " + std::to_string(peer) + ", not another of the " + std::to_string(declaredGpus));
    if (threadblock.channel < 0 || threadblock.channel >= document.channels) attributes.fail("has a chan outside nchannels");
    document.threadblocks.push_back(threadblock);
    ++gpu.threadblockCount;
  }

  void step(const Attributes& attributes) {
    MscclThreadblock& threadblock = document.threadblocks.back();
    if (attributes.integer(kS) != location.step) attributes.fail("has s=\"" + std::string(attributes.text(kS)) + "\"");
    const MscclStepType type = stepType(attributes);
    const std::int32_t count = attributes.integer(kCnt);
    const bool reads = type == MscclStepType::Send || type == MscclStepType::ReceiveReduce;
    const bool receives = type == MscclStepType::Receive || type == MscclStepType::ReceiveReduce;
    if (type == MscclStepType::Nop && count != 0) attributes.fail("is a nop that moves chunks");
    if (reads) checkRange(attributes, kSrcbuf, kSrcoff, count);
    if (receives) checkRange(attributes, kDstbuf, kDstoff, count);
    if (type == MscclStepType::ReceiveReduce && attributes.integer(kSrcoff) != attributes.integer(kDstoff))
      attributes.fail("reduces into other chunks than it reads, which the writer never does");
    if (type == MscclStepType::Send && threadblock.sendPeer < 0) attributes.fail("sends, in a tb with send=\"-1\"");
    if (receives && threadblock.receivePeer < 0) attributes.fail("receives, in a tb with recv=\"-1\"");
    const std::int32_t dependsOn = attributes.integer(kDepid), dependsOnStep = attributes.integer(kDeps);
    const std::int32_t index = static_cast<std::int32_t>(document.steps.size());
    if (dependsOn != -1 || dependsOnStep != -1) {
      if (dependsOn < 0 || dependsOnStep < 0 || dependsOn == location.threadblock) attributes.fail("depends on no step of another tb");
      dependencies.push_back({index, location, dependsOn, dependsOnStep});
    }
    if (!attributes.is(kHasdep, "0") && !attributes.is(kHasdep, "1")) attributes.fail("has hasdep neither 0 nor 1");
    hasDependents.push_back(attributes.is(kHasdep, "1"));
    MscclStep step;
    step.offset = reads ? attributes.integer(kSrcoff) : receives ? attributes.integer(kDstoff) : 0;
    step.count = static_cast<std::uint32_t>(count);
    step.kind = static_cast<std::uint32_t>(type);
    document.steps.push_back(step);
    ++threadblock.stepCount;
  }

  void checkRange(const Attributes& attributes, StepAttribute buffer, StepAttribute offset, std::int32_t count) const {
    if (!attributes.is(buffer, "i"))
      attributes.fail("uses " + std::string(kStepAttributes[buffer]) + "=\"" + std::string(attributes.text(buffer)) + "\": the checker follows the buffer \"i\" alone");
    // MSCCL's runtime counts transfers by size (nchunksForSendPeer[cnt - 1]): one of no chunks is out of bounds.
    if (count < 1) attributes.fail("has cnt=\"" + std::to_string(count) + "\": a transfer of no chunks");
    const std::int64_t first = attributes.integer(offset);
    if (first < 0 || first + count > document.chunks)
      attributes.fail("has " + std::string(kStepAttributes[offset]) + "=" + std::to_string(first) + " cnt=" + std::to_string(count) +
                      ", not inside the " + std::to_string(document.chunks) + " chunks");
  }

  // The runtime signals only the steps marked hasdep, so a wait for another would never end.
  void closeGpu() {
    const MscclGpu& gpu = document.gpus.back();
    for (const WrittenDependency& written : dependencies) {
      const std::string target = "tb " + std::to_string(written.threadblock) + " step " + std::to_string(written.threadblockStep);
      if (written.threadblock >= gpu.threadblockCount) written.where.fail("depends on " + target + ", which does not exist");
      const MscclThreadblock& other = document.threadblocks[static_cast<std::size_t>(gpu.firstThreadblock + written.threadblock)];
      if (written.threadblockStep >= other.stepCount) written.where.fail("depends on " + target + ", which does not exist");
      const std::int32_t dependency = other.firstStep + written.threadblockStep;
      if (!hasDependents[static_cast<std::size_t>(dependency - firstStepOfGpu)])
        written.where.fail("depends on " + target + ", which has hasdep=\"0\": the runtime never signals it");
      document.steps[static_cast<std::size_t>(written.step)].dependency = dependency;
    }
    dependencies.clear();
    hasDependents.clear();
  }

  MscclDocument document;
  int declaredGpus = 0;
  bool algoRead = false;
  std::size_t depth = 0;  // elements open
  Location location;      // of the element last opened
  // Of the GPU being read:
  std::int32_t firstStepOfGpu = 0;
  std::vector<WrittenDependency> dependencies;
  std::vector<bool> hasDependents;  // per step
  std::string pending;      // an unfinished tag at the end of the last piece
  std::size_t scanned = 0;  // bytes before `pending`, for messages
};

MscclXmlReader::MscclXmlReader() : state_(std::make_unique<State>()) {}
MscclXmlReader::~MscclXmlReader() = default;

void MscclXmlReader::read(std::string_view piece) {
  // A piece is read where it lies; only an unfinished tag at its end is copied, to be joined to the next.
  std::string_view text = piece;
  if (!state_->pending.empty()) text = state_->pending.append(piece);
  const std::size_t used = state_->scan(text);
  state_->scanned += used;
  state_->pending = std::string(text.substr(used));
}

MscclDocument MscclXmlReader::finish() {
  State& state = *state_;
  state.location = {};
  if (!state.pending.empty()) state.location.fail("ends inside a tag");
  if (state.depth != 0 || !state.algoRead) state.location.fail("ends before </algo>");
  if (static_cast<int>(state.document.gpus.size()) != state.declaredGpus)
    state.location.fail("has ngpus=\"" + std::to_string(state.declaredGpus) + "\" but " + std::to_string(state.document.gpus.size()) + " <gpu>s");
  return std::move(state.document);
}

int mscclThreadblockOf(const MscclDocument& document, std::int32_t step) {
  // The last threadblock starting at or before the step: empty ones before it start there too.
  return static_cast<int>(std::upper_bound(document.threadblocks.begin(), document.threadblocks.end(), step,
                                           [](std::int32_t s, const MscclThreadblock& tb) { return s < tb.firstStep; }) -
                          document.threadblocks.begin()) - 1;
}

std::string mscclStepName(const MscclDocument& document, std::int32_t step) {
  const int t = mscclThreadblockOf(document, step);
  const auto gpu = std::upper_bound(document.gpus.begin(), document.gpus.end(), t,
                                    [](int index, const MscclGpu& g) { return index < g.firstThreadblock; }) - 1;
  return Location{static_cast<int>(gpu - document.gpus.begin()), t - gpu->firstThreadblock,
                  step - document.threadblocks[static_cast<std::size_t>(t)].firstStep}.text();
}

}  // namespace ddl
