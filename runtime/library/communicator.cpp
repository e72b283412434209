#include "runtime/library/communicator.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <set>
#include <span>
#include <sstream>

#include "algorithms/collectives/option_table.hpp"
#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/schedule_file.hpp"
#include "common/invalid_argument.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {
namespace {

// Whether `aBytes` at `a` and `bBytes` at `b` share no byte (a total order on pointers, std::less's).
bool apart(const void* a, std::size_t aBytes, const void* b, std::size_t bBytes) {
  const auto* first = static_cast<const char*>(a);
  const auto* second = static_cast<const char*>(b);
  return std::less_equal<>()(first + aBytes, second) || std::less_equal<>()(second + bBytes, first);
}
bool apart(const void* a, const void* b, std::size_t bytes) { return apart(a, bytes, b, bytes); }

// The gather-and-answer of agreements and barriers goes on a channel of its own, kAgreementChannel, above
// any schedule's and below the MPI watchdog's tags. The scatter of a broadcast goes on channel 0, as the
// all-gather after it does: messages of one channel between two ranks are matched in the order posted, and a rank posts the
// all-gather's only once its scatter is done. (NCCL makes a communicator per channel up to the highest.)
constexpr Channel kScatterChannel = 0;
// An all-to-all runs alone on the communicator's thread, like a broadcast's scatter: channel 0 is free.
constexpr Channel kAllToAllChannel = 0;
// Point-to-point tag t goes on channel kPointToPointChannel - t, below the agreements' and above any
// schedule's (programFor refuses programs that reach them), so that a send of one tag never matches a
// receive of another.
constexpr Channel kPointToPointChannel = kAgreementChannel - 1;
constexpr Channel kLowestReservedChannel = kPointToPointChannel - (Communicator::kPointToPointTags - 1);

// Programs kept per communicator: a framework's gradient buckets come in a few sizes.
constexpr std::size_t kKeptPrograms = 64;

}  // namespace

void CollectiveOutcome::finish(int result, std::string message) {
  std::lock_guard lock(mutex_);
  result_ = result;
  message_ = std::move(message);
  done_ = true;
  finished_.notify_all();
}

void CollectiveOutcome::wait() {
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return done_; });
}

bool CollectiveOutcome::done() {
  std::lock_guard lock(mutex_);
  return done_;
}

Communicator::Communicator(std::unique_ptr<Transport> transport, bool threaded, std::unique_ptr<Transport> control)
    : rank_(transport->rank()),
      size_(transport->size()),
      transport_(std::move(transport)),
      control_(std::move(control)),
      threaded_(threaded) {
  runner_ = std::make_unique<ProgramRunner>(*transport_, RunOptions{.pieceBytes = RunOptions{}.pieceBytes, .timeout = timeout_});
  const AlgorithmDefinition& ring = findAlgorithm(CollectiveKind::Allreduce, "ring");
  choices_[CollectiveKind::Allreduce] = {AlgorithmChoice{&ring, {}}, nullptr, nullptr};
  const AlgorithmDefinition& ringGather = findAlgorithm(CollectiveKind::AllGather, "ring");
  choices_[CollectiveKind::AllGather] = {AlgorithmChoice{&ringGather, {}}, nullptr, nullptr};
  const AlgorithmDefinition& ringScatter = findAlgorithm(CollectiveKind::ReduceScatter, "ring");
  choices_[CollectiveKind::ReduceScatter] = {AlgorithmChoice{&ringScatter, {}}, nullptr, nullptr};
  if (threaded_) worker_ = std::thread([this] { workLoop(); });
}

Communicator::~Communicator() {
  if (threaded_) {
    {
      std::lock_guard lock(queueMutex_);
      stopping_ = true;
    }
    queued_.notify_all();
    worker_.join();  // after the queue is empty
  }
  runner_.reset();
  if (scratch_) transport_->deallocate(scratch_);
  transport_.reset();
  control_.reset();  // last: the data transport may use its MPI communicator
}

void Communicator::setTimeout(double seconds) {
  if (!(seconds >= 1 && seconds <= 86400)) throw InvalidArgument("seconds", "the timeout must lie between 1 s and a day");
  const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
  // In order with the collectives: those issued before keep the timeout they were issued under.
  issue([this, timeout] {
    timeout_ = timeout;
    runner_ = std::make_unique<ProgramRunner>(*transport_, RunOptions{.pieceBytes = RunOptions{}.pieceBytes, .timeout = timeout});
  })->wait();
}

void Communicator::agreeOnChoice(CollectiveKind kind, const std::function<CollectiveChoice()>& make) {
  // Every rank must run the same program of every call: a rank that refused (a file missing on its node)
  // or chose otherwise (another file under the same name) would leave the others waiting in a collective
  // it never enters, or match their messages to another call's. So every rank accepts, or none does.
  std::optional<CollectiveChoice> made;
  std::exception_ptr refusal;
  try {
    made = make();
  } catch (const InvalidArgument&) {
    refusal = std::current_exception();
  }
  std::uint64_t fingerprint = 0;
  if (made) {
    const std::string what = made->schedule ? "schedule " + made->schedule->description() + " of " +
                                                  std::to_string(made->schedule->spec().elements)
                             : made->tuning ? "tuning " + made->tuning->topology + " " + std::to_string(made->tuning->sizes.size()) +
                                                  " " + made->tuning->choose(0).label() + " " + made->tuning->choose(1e12).label()
                                            : made->fixed.label();
    fingerprint = std::hash<std::string>{}(what) | 1;  // never 0, which stands for a refusal
  }
  const auto [lowest, highest] = lowestAndHighest(fingerprint, "agreeing on the " + std::string(toString(kind)) + "'s choice");
  if (refusal) std::rethrow_exception(refusal);
  if (lowest == 0) throw InvalidArgument("comm", "another rank refused this choice, so none of them takes it");
  if (lowest != highest) throw InvalidArgument("comm", "the ranks chose differently (each rank must give the same choice)");
  choices_[kind] = *made;
}

void Communicator::setAlgorithm(CollectiveKind kind, const std::string& name, const std::string& options) {
  agreeOnChoice(kind, [&] { return algorithmChoice(kind, name, options); });
}

CollectiveChoice Communicator::algorithmChoice(CollectiveKind kind, const std::string& name, const std::string& options) const {
  const AlgorithmDefinition& algorithm = findAlgorithm(kind, name);
  refuseSwitchReduction(algorithm, "algorithm", ", which libddlscale's transports have no part for");
  AlgorithmOptions parsed;
  std::set<std::string> given;
  std::istringstream words(options);
  for (std::string word; words >> word;) {
    const std::size_t equals = word.find('=');
    if (equals == std::string::npos || equals == 0)
      throw InvalidArgument("options", "'" + word + "' is not name=value (\"dims=4x16x4\")");
    const std::string option = word.substr(0, equals);
    const OptionDeclaration* declaration = findOptionDeclaration(option);
    if (!declaration) {
      std::string known;
      for (const OptionDeclaration& each : algorithmOptionTable()) known += (known.empty() ? "" : ", ") + std::string(each.name);
      throw InvalidArgument("options", "unknown option '" + option + "' (known: " + known + ")");
    }
    if (!given.insert(std::string(declaration->name)).second)
      throw InvalidArgument("options", "'" + std::string(declaration->name) + "' is given twice");
    declaration->set(parsed, parseOptionText(*declaration, word.substr(equals + 1)));
  }
  checkOptions(algorithm, size_, parsed);
  return {AlgorithmChoice{&algorithm, parsed}, nullptr, nullptr};
}

void Communicator::setTuning(CollectiveKind kind, const std::string& path) {
  agreeOnChoice(kind, [&]() -> CollectiveChoice {
  auto table = std::make_shared<const TuningTable>(loadTuningTable(path));
  if (const std::string mismatch = tuningMismatch(*table, kind, size_, ""); !mismatch.empty())
    throw InvalidArgument("path", path + " " + mismatch);
  if (const std::string chosen = switchChoiceOf(*table); !chosen.empty())
    throw InvalidArgument("path", path + " " + chosen + ", which reduces in an NVSwitch (NVLS) that libddlscale's transports "
                                                  "have no part for");
  return {choices_.at(kind).fixed, table, nullptr};
  });
}

void Communicator::setSchedule(CollectiveKind kind, const std::string& path) {
  agreeOnChoice(kind, [&]() -> CollectiveChoice {
  auto schedule = std::make_shared<const Schedule>(loadVerifiedSchedule(path, "path"));
  if (schedule->spec().kind != kind)
    throw InvalidArgument("path", path + " is a schedule of another collective, not " + std::string(toString(kind)));
  if (schedule->ranks() != size_)
    throw InvalidArgument("path", path + " is a schedule for " + std::to_string(schedule->ranks()) + " ranks, not " +
                                      std::to_string(size_));
  if (schedule->spec().switches > 0)
    throw InvalidArgument("path", path + " reduces in a switch (its \"switches\"), which libddlscale's transports have no part for");
  return {choices_.at(kind).fixed, nullptr, schedule};
  });
}

std::string Communicator::describe(CollectiveKind kind, double bytes) const {
  const CollectiveChoice& choice = choices_.at(kind);
  if (choice.schedule) return choice.schedule->description();
  return choice.tuning ? choice.tuning->choose(bytes).label() : choice.fixed.label();
}

std::shared_ptr<const Program> Communicator::programFor(CollectiveKind kind, Elements count, DataType type) {
  const CollectiveChoice& choice = choices_.at(kind);
  const int elementBytes = static_cast<int>(sizeOf(type));
  const CollectiveSpec spec{kind, size_, count, elementBytes};
  if (choice.schedule) {
    const CollectiveSpec& fixed = choice.schedule->spec();
    if (fixed.elements != count || fixed.elementBytes != elementBytes)
      throw InvalidArgument("count", "the schedule file runs " + std::to_string(fixed.elements) + " elements of " +
                                         std::to_string(fixed.elementBytes) + " bytes, not " + std::to_string(count) +
                                         " of " + std::to_string(elementBytes));
  }
  const AlgorithmChoice chosen = choice.tuning ? choice.tuning->choose(spec.bytes()) : choice.fixed;
  // A schedule file is keyed by its loaded copy, not its description: another file may describe itself alike.
  const std::string label = choice.schedule ? "schedule at " + std::to_string(reinterpret_cast<std::uintptr_t>(choice.schedule.get()))
                                            : chosen.label();
  const auto key = std::make_tuple(kind, count, elementBytes, label);
  if (auto found = programs_.find(key); found != programs_.end()) return found->second;
  auto program = std::make_shared<const Program>(choice.schedule ? choice.schedule->program(rank_)
                                                                 : makeSchedule(*chosen.algorithm, spec, chosen.options).program(rank_));
  // Reserved when it runs, in order on every rank (NCCL makes its channels' communicators collectively).
  if (const int channels = channelsOf(std::span(program.get(), 1)); channels > kLowestReservedChannel)
    throw InvalidArgument("algorithm", label + " uses " + std::to_string(channels) + " channels, more than MPI tags allow");
  if (programs_.size() == kKeptPrograms) programs_.clear();
  programs_[key] = program;
  return program;
}

Reduction Communicator::checkedReduction(Reduction reduction) {
  switch (reduction) {
    case Reduction::Sum:
    case Reduction::Product:
    case Reduction::Min:
    case Reduction::Max:
    case Reduction::Average: return reduction;
  }
  throw InvalidArgument("op", "unknown reduction " + std::to_string(static_cast<int>(reduction)) + " (sum, prod, min, max, avg)");
}

std::shared_ptr<CollectiveOutcome> Communicator::allreduce(const void* send, void* recv, Elements count, DataType type,
                                                           Reduction reduction) {
  if (count > 0 && (!send || !recv)) throw InvalidArgument(send ? "recv" : "send", "a null buffer");
  checkedReduction(reduction);
  const CallShape shape = nextCall(CallKind::Allreduce, count, type, -1, static_cast<int>(reduction));
  if (count == 0) return issue([this, shape] { if (checkEveryCall_) agreeOnCall(shape); });
  std::shared_ptr<const Program> program = programFor(CollectiveKind::Allreduce, count, type);
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeOf(type);
  // Out of place where the buffers are apart, as NCCL's sendbuff and recvbuff; host buffers that partly
  // overlap (which MPI forbids, and which this API has always accepted) are moved, then reduced in place.
  const bool outOfPlace = apart(send, recv, bytes);
  if (send != recv && !outOfPlace) refuseOverlapOnGpu();
  return issue([this, program, send, recv, bytes, count, type, reduction, outOfPlace, shape] {
    if (checkEveryCall_) agreeOnCall(shape);
    if (send != recv && !outOfPlace) copyIn(recv, send, bytes);
    reserveChannelsFor(*program);
    runner_->run(*program, outOfPlace ? send : recv, recv, type, stepOperator(reduction));
    if (reduction == Reduction::Average) transport_->divide(recv, static_cast<std::size_t>(count), type, size_);
  });
}

void Communicator::reserveChannelsFor(const Program& program, int atLeast) {
  transport_->reserveChannels(std::max(channelsOf(std::span(&program, 1)), atLeast));
  transport_->connectPeers(channelPeers(std::span(&program, 1)));
}

void* Communicator::reduceScatterScratch(std::size_t bytes) {
  if (bytes > scratchBytes_) {
    if (scratch_) transport_->deallocate(scratch_);
    scratch_ = nullptr;
    scratchBytes_ = 0;
    scratch_ = transport_->allocate(bytes);
    scratchBytes_ = bytes;
  }
  return scratch_;
}

std::shared_ptr<CollectiveOutcome> Communicator::reduceScatter(const void* send, void* recv, Elements recvCount, DataType type,
                                                               Reduction reduction) {
  if (recvCount > 0 && (!send || !recv)) throw InvalidArgument(send ? "recv" : "send", "a null buffer");
  checkedReduction(reduction);
  const CallShape shape = nextCall(CallKind::ReduceScatter, recvCount, type, -1, static_cast<int>(reduction));
  if (recvCount == 0) return issue([this, shape] { if (checkEveryCall_) agreeOnCall(shape); });
  const Elements total = recvCount * size_;
  std::shared_ptr<const Program> program = programFor(CollectiveKind::ReduceScatter, total, type);
  const std::size_t blockBytes = static_cast<std::size_t>(recvCount) * sizeOf(type);
  // The schedule reduces into a whole buffer (block r at r x recvCount, the rest scratch), read out of
  // place from `send`, which it leaves as it was; this rank's block is then copied to `recv`. `recv` may be
  // `send`'s own block r (NCCL's in place), which the run only reads.
  if (!apart(send, blockBytes * static_cast<std::size_t>(size_), recv, blockBytes) &&
      recv != static_cast<const char*>(send) + static_cast<std::size_t>(rank_) * blockBytes)
    throw InvalidArgument("recv", "overlaps send without being this rank's block of it (in place: recv = send + rank x recvcount)");
  return issue([this, program, send, recv, blockBytes, recvCount, type, reduction, shape] {
    if (checkEveryCall_) agreeOnCall(shape);
    char* whole = static_cast<char*>(reduceScatterScratch(blockBytes * static_cast<std::size_t>(size_)));
    reserveChannelsFor(*program);
    runner_->run(*program, send, whole, type, stepOperator(reduction));
    char* mine = whole + static_cast<std::size_t>(rank_) * blockBytes;
    if (reduction == Reduction::Average) transport_->divide(mine, static_cast<std::size_t>(recvCount), type, size_);
    copyIn(recv, mine, blockBytes);
  });
}

std::shared_ptr<CollectiveOutcome> Communicator::allGather(const void* send, void* recv, Elements count, DataType type) {
  if (count > 0 && (!send || !recv)) throw InvalidArgument(send ? "recv" : "send", "a null buffer");
  const CallShape shape = nextCall(CallKind::AllGather, count, type);
  if (count == 0) return issue([this, shape] { if (checkEveryCall_) agreeOnCall(shape); });
  const Elements total = count * size_;
  std::shared_ptr<const Program> program = programFor(CollectiveKind::AllGather, total, type);
  const std::size_t blockBytes = static_cast<std::size_t>(count) * sizeOf(type);
  char* mine = static_cast<char*>(recv) + static_cast<std::size_t>(rank_) * blockBytes;
  if (send != mine && !apart(send, mine, blockBytes)) refuseOverlapOnGpu();
  return issue([this, program, send, recv, mine, blockBytes, type, shape] {
    if (checkEveryCall_) agreeOnCall(shape);
    if (send != mine) copyIn(mine, send, blockBytes);
    reserveChannelsFor(*program);
    runner_->run(*program, recv, type);
  });
}

std::shared_ptr<CollectiveOutcome> Communicator::broadcast(void* buffer, Elements count, DataType type, Rank root) {
  if (root < 0 || root >= size_)
    throw InvalidArgument("root", std::to_string(root) + " is not a rank of " + std::to_string(size_));
  if (count > 0 && !buffer) throw InvalidArgument("buffer", "a null buffer");
  const CallShape shape = nextCall(CallKind::Broadcast, count, type, root);
  // Checked always: ranks that disagree on the root would both send, and the all-gather after it would
  // take their blocks for its own, leaving every later collective of the communicator wrong.
  if (size_ == 1) return issue([] {});
  if (count == 0) return issue([this, shape] { agreeOnCall(shape); });
  // Checked here, alike on every rank: one MPI message carries each block.
  if (static_cast<double>(blockOf({0, count}, size_, 0).count) * static_cast<double>(sizeOf(type)) > INT_MAX)
    throw InvalidArgument("count", "a broadcast's blocks (count / ranks) must stay below 2 GiB each");
  std::shared_ptr<const Program> program = programFor(CollectiveKind::AllGather, count, type);
  return issue([this, program, buffer, count, type, root, shape] {
    agreeOnCall(shape);
    reserveChannelsFor(*program, kScatterChannel + 1);
    scatterBlocks(static_cast<char*>(buffer), count, type, root);
    runner_->run(*program, buffer, type);
  });
}

std::shared_ptr<CollectiveOutcome> Communicator::barrier() {
  ++calls_;
  return issue([this] { runLowestAndHighest(0, "ddl_barrier: waiting for every rank to arrive"); });
}

std::size_t Communicator::messageBytes(Elements count, DataType type, const char* field) {
  const double bytes = static_cast<double>(count) * static_cast<double>(sizeOf(type));
  if (bytes > INT_MAX) throw InvalidArgument(field, "a message must stay below 2 GiB");
  return static_cast<std::size_t>(bytes);
}

std::size_t Communicator::checkedPointToPoint(const void* buffer, Elements count, DataType type, Rank peer, int tag) const {
  if (peer != kAnyPeer && (peer < 0 || peer >= size_ || peer == rank_))
    throw InvalidArgument("peer", std::to_string(peer) + " is not another rank of " + std::to_string(size_));
  if (tag < 0 || tag >= kPointToPointTags)
    throw InvalidArgument("tag", std::to_string(tag) + " is not a tag of 0 .. " + std::to_string(kPointToPointTags - 1));
  if (count > 0 && !buffer) throw InvalidArgument("buffer", "a null buffer");
  return messageBytes(count, type, "count");
}

std::shared_ptr<CollectiveOutcome> Communicator::send(const void* buffer, Elements count, DataType type, Rank peer, int tag) {
  const std::size_t bytes = checkedPointToPoint(buffer, count, type, peer, tag);
  return issue([this, buffer, bytes, peer, tag] {
    waitForAll(*transport_, {transport_->postSend(peer, kPointToPointChannel - tag, buffer, bytes)},
               "a send to rank " + std::to_string(peer) + " (tag " + std::to_string(tag) + ")");
  });
}

std::shared_ptr<CollectiveOutcome> Communicator::receive(void* buffer, Elements count, DataType type, Rank peer, int tag) {
  const std::size_t bytes = checkedPointToPoint(buffer, count, type, peer, tag);
  return issue([this, buffer, bytes, peer, tag] {
    waitForAll(*transport_, {transport_->postReceive(peer, kPointToPointChannel - tag, buffer, bytes)},
               "a receive from rank " + std::to_string(peer) + " (tag " + std::to_string(tag) + ")");
  });
}

std::shared_ptr<CollectiveOutcome> Communicator::receiveFromAny(void* buffer, Elements count, DataType type, int tag, Rank* source) {
  if (!source) throw InvalidArgument("source", "a null pointer");
  if (size_ < 2) throw InvalidArgument("comm", "a receive from any other rank, in a communicator of one rank");
  const std::size_t bytes = checkedPointToPoint(buffer, count, type, kAnyPeer, tag);
  return issue([this, buffer, bytes, tag, source] {
    const Channel channel = kPointToPointChannel - tag;
    const std::string what = "a receive from any rank (tag " + std::to_string(tag) + ")";
    Rank sender = kAnyPeer;
    // The sender first (MPI_Probe's way), then an ordinary receive from it, which takes that very message:
    // the calls run one at a time, so no other receive on this channel comes between.
    try {
      sender = transport_->waitForSender(channel, bytes, timeout_);
    } catch (const TransportAbandoned&) {
      throw;
    } catch (const std::exception& error) {
      transport_->fail(what + ": " + error.what());
    }
    waitForAll(*transport_, {transport_->postReceive(sender, channel, buffer, bytes)}, what + ", from rank " + std::to_string(sender));
    *source = sender;
  });
}

std::shared_ptr<CollectiveOutcome> Communicator::allToAll(const void* send, const Blocks& sent, void* recv, const Blocks& received,
                                                          DataType type) {
  const auto ranks = static_cast<std::size_t>(size_);
  for (const auto* blocks : {&sent, &received})
    if (blocks->counts.size() != ranks || blocks->offsets.size() != ranks)
      throw InvalidArgument(blocks == &sent ? "sendcounts" : "recvcounts", "one count and one offset per rank");
  const std::size_t elementBytes = sizeOf(type);
  for (std::size_t r = 0; r < ranks; ++r) {
    messageBytes(sent.counts[r], type, "sendcounts");
    messageBytes(received.counts[r], type, "recvcounts");
    if ((sent.counts[r] > 0 && !send) || (received.counts[r] > 0 && !recv))
      throw InvalidArgument(sent.counts[r] > 0 && !send ? "send" : "recv", "a null buffer");
  }
  const auto self = static_cast<std::size_t>(rank_);
  if (sent.counts[self] != received.counts[self])
    throw InvalidArgument("recvcounts", "this rank's own block is " + std::to_string(sent.counts[self]) + " elements sent but " +
                                            std::to_string(received.counts[self]) + " received");
  const CallShape shape = nextCall(CallKind::AllToAll, 0, type);
  return issue([this, send, sent, recv, received, elementBytes, self, shape] {
    if (checkEveryCall_) agreeOnCall(shape);
    const auto* from = static_cast<const char*>(send);
    auto* to = static_cast<char*>(recv);
    auto at = [&](const Blocks& blocks, std::size_t r) { return static_cast<std::size_t>(blocks.offsets[r]) * elementBytes; };
    auto bytes = [&](const Blocks& blocks, std::size_t r) { return static_cast<std::size_t>(blocks.counts[r]) * elementBytes; };
    std::vector<RequestId> pending;
    for (std::size_t r = 0; r < sent.counts.size(); ++r) {
      if (r == self) continue;
      if (received.counts[r] > 0)
        pending.push_back(transport_->postReceive(static_cast<Rank>(r), kAllToAllChannel, to + at(received, r), bytes(received, r)));
      if (sent.counts[r] > 0)
        pending.push_back(transport_->postSend(static_cast<Rank>(r), kAllToAllChannel, from + at(sent, r), bytes(sent, r)));
    }
    if (bytes(sent, self) > 0) copyIn(to + at(received, self), from + at(sent, self), bytes(sent, self));
    waitForAll(*transport_, std::move(pending), "an all-to-all");
  });
}

std::pair<std::uint64_t, std::uint64_t> Communicator::lowestAndHighest(std::uint64_t value, const std::string& what) {
  std::pair<std::uint64_t, std::uint64_t> result;
  issue([&] { result = runLowestAndHighest(value, what); })->wait();
  return result;
}

std::pair<std::uint64_t, std::uint64_t> Communicator::runLowestAndHighest(std::uint64_t value, const std::string& what) {
  Transport& transport = control();
  std::uint64_t extremes[2] = {value, value};
  if (rank_ == 0) {
    std::vector<std::uint64_t> values(static_cast<std::size_t>(size_), value);
    std::vector<RequestId> received;
    for (Rank r = 1; r < size_; ++r)
      received.push_back(transport.postReceive(r, kAgreementChannel, &values[static_cast<std::size_t>(r)], sizeof value));
    waitForAll(transport, std::move(received), what);
    extremes[0] = *std::min_element(values.begin(), values.end());
    extremes[1] = *std::max_element(values.begin(), values.end());
    std::vector<RequestId> sent;
    for (Rank r = 1; r < size_; ++r) sent.push_back(transport.postSend(r, kAgreementChannel, extremes, sizeof extremes));
    waitForAll(transport, std::move(sent), what);
  } else {
    waitForAll(transport, {transport.postSend(0, kAgreementChannel, &value, sizeof value),
                transport.postReceive(0, kAgreementChannel, extremes, sizeof extremes)},
               what);
  }
  return {extremes[0], extremes[1]};
}

bool Communicator::checksEveryCall() {
  const char* value = std::getenv("DDLSCALE_CHECK_AGREEMENT");
  return value && std::string(value) == "1";
}

void Communicator::agreeOnCall(const CallShape& mine) {
  Transport& transport = control();
  ddl::agreeOnCall(transport, kAgreementChannel, mine,
                   [&](std::vector<RequestId> requests, const std::string& what) { waitForAll(transport, std::move(requests), what); });
}

void Communicator::waitForAll(Transport& transport, std::vector<RequestId> requests, const std::string& what) {
  // A peer silent past the timeout ends the job, or gives the transport up (the transport throws when a
  // wait outlasts it): a receive posted into a buffer of the caller's, or of this frame's, must never be
  // written after the call.
  try {
    waitForAllWithin(transport, requests, timeout_);
  } catch (const TransportAbandoned&) {
    throw;
  } catch (const std::exception& error) {
    transport.fail(what + ": " + error.what());
  }
}

void Communicator::scatterBlocks(char* buffer, Elements count, DataType type, Rank root) {
  const std::size_t elementBytes = sizeOf(type);
  std::vector<RequestId> pending;
  auto blockAt = [&](Rank r) { return blockOf({0, count}, size_, r); };
  if (rank_ == root) {
    for (Rank r = 0; r < size_; ++r) {
      const Range block = blockAt(r);
      if (r == root || block.empty()) continue;
      pending.push_back(transport_->postSend(r, kScatterChannel, buffer + static_cast<std::size_t>(block.offset) * elementBytes,
                                          static_cast<std::size_t>(block.count) * elementBytes));
    }
  } else if (const Range block = blockAt(rank_); !block.empty()) {
    pending.push_back(transport_->postReceive(root, kScatterChannel, buffer + static_cast<std::size_t>(block.offset) * elementBytes,
                                           static_cast<std::size_t>(block.count) * elementBytes));
  }
  waitForAll(*transport_, std::move(pending), "the scatter of a broadcast from rank " + std::to_string(root));
}

void Communicator::refuseOverlapOnGpu() const {
  // cudaMemcpy's result is undefined for overlapping ranges; host memory is moved (memmove).
  if (!transport_->memoryIsHost())
    throw InvalidArgument("send", "overlaps recv without being in place: GPU buffers are the same or apart");
}

void Communicator::copyIn(void* to, const void* from, std::size_t bytes) {
  if (transport_->memoryIsHost())
    std::memmove(to, from, bytes);
  else
    transport_->copy(to, from, bytes);
}

std::shared_ptr<CollectiveOutcome> Communicator::issue(std::function<void()> call) {
  // A GPU communicator's streams are its own: what the caller queued before the call (on the default stream,
  // or a blocking stream, which the default stream waits for) is ordered before the call's first message,
  // which in place is sent from the caller's own buffer.
  std::function<void()> work = [this, call = std::move(call)] {
    transport_->orderAfterCallersWork();
    call();
  };
  auto completion = std::make_shared<CollectiveOutcome>();
  if (!threaded_) {
    work();
    completion->finish(0, "");
    return completion;
  }
  {
    std::lock_guard lock(queueMutex_);
    queue_.emplace_back(std::move(work), completion);
  }
  queued_.notify_one();
  return completion;
}

void Communicator::workLoop() {
  std::string unusable;  // why this thread cannot drive the transport, if it cannot
  try {
    transport_->adoptThread();
    if (control_) control_->adoptThread();
  } catch (const std::exception& error) {
    unusable = std::string("the communicator's thread cannot use its transport: ") + error.what();
  }
  std::unique_lock lock(queueMutex_);
  for (;;) {
    queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, with nothing left
    auto [work, completion] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      if (!unusable.empty()) throw std::runtime_error(unusable);
      work();
      completion->finish(0, "");
    } catch (const InvalidArgument& error) {
      completion->finish(1, error.what());  // DDL_INVALID_ARGUMENT: what the ranks' calls disagree on
    } catch (const TransportAbandoned& error) {
      completion->finish(4, error.what());  // DDL_ABORTED: a peer was lost, the communicator is given up
    } catch (const std::exception& error) {
      completion->finish(3, error.what());  // DDL_INTERNAL_ERROR: arguments were checked when it was issued
    }
    lock.lock();
  }
}

}  // namespace ddl
