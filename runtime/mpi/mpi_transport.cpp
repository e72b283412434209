#include "runtime/mpi/mpi_transport.hpp"

#include <sched.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "runtime/host_reduce.hpp"
#include "runtime/mpi/eager_limit.hpp"
#include "runtime/pending_messages.hpp"

namespace ddl {

MpiTransport::MpiTransport(MPI_Comm communicator, SilenceWatchdog* watchdog)
    : communicator_(communicator), watchdog_(watchdog) {
  MPI_Comm_rank(communicator_, &rank_);
  MPI_Comm_size(communicator_, &size_);
}

namespace {

// Waits for `request` until `deadline`; false where it passed first (the request stays in progress: MPI
// cannot cancel a collective).
bool completesBy(MPI_Request& request, std::chrono::steady_clock::time_point deadline) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    sched_yield();
  }
}

}  // namespace

std::unique_ptr<MpiTransport> MpiTransport::overDuplicateOf(MPI_Comm parent, std::chrono::milliseconds patience) {
  // MPI_Comm_dup would wait for the last rank forever: its non-blocking form is polled to a deadline.
  const auto deadline = std::chrono::steady_clock::now() + patience;
  int size = 0;
  MPI_Comm_size(parent, &size);
  const std::string late = "not every one of the " + std::to_string(size) + " ranks came to create the communicator within " +
                           std::to_string(std::chrono::duration<double>(patience).count()).substr(0, 4) +
                           " s (a rank stopped, ended, gave up before this one came, or never called it)";
  MPI_Comm duplicate = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Comm_idup(parent, &duplicate, &request);
  if (!completesBy(request, deadline)) throw TransportError(late);
  // A rank that came after the others gave up completes its duplicate with theirs, abandoned: this barrier
  // on the duplicate shows that every rank is here together, so that the collective which finds the ranks
  // sharing memory (blocking, with no non-blocking form) cannot wait for one that never comes. Left to the
  // first collective, it would wait without a deadline.
  MPI_Ibarrier(duplicate, &request);
  if (!completesBy(request, deadline)) throw TransportError(late);
  auto transport = std::make_unique<MpiTransport>(duplicate);
  transport->ownsCommunicator_ = true;
  // The duplicate is the library's own: a message that fails (a receive too short for what came, where
  // ranks disagree on a count) is reported by the transport naming the peer, not by Open MPI's abort.
  MPI_Comm_set_errhandler(duplicate, MPI_ERRORS_RETURN);
  transport->errorsReturn_ = true;
  transport->reserveChannels(0);
  return transport;
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    for (Persistent& kept : persistent_)
      if (kept.request != MPI_REQUEST_NULL) MPI_Request_free(&kept.request);
  if (ownsCommunicator_) MPI_Comm_free(&communicator_);
}

int MpiTransport::checkedCount(std::size_t bytes) const {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw TransportError("a message of " + std::to_string(bytes) + " bytes exceeds what one MPI call carries");
  return static_cast<int>(bytes);
}

void MpiTransport::reserveChannels(int channels) {
  if (channels > SilenceWatchdog::kFirstReservedTag)
    throw TransportError("a schedule with " + std::to_string(channels) + " channels: MPI tags above " +
                         std::to_string(SilenceWatchdog::kFirstReservedTag) + " are reserved");
  if (!eagerBytes_.empty()) return;
  const std::vector<bool> sharing = ranksSharingMemory(communicator_);
  const std::size_t payload = sharedMemoryEagerPayload();
  eagerBytes_.assign(sharing.size(), 0);
  for (std::size_t rank = 0; rank < sharing.size(); ++rank)
    if (sharing[rank]) eagerBytes_[rank] = payload;
}

std::size_t MpiTransport::eagerBytes(Rank peer) const {
  return peer >= 0 && static_cast<std::size_t>(peer) < eagerBytes_.size() ? eagerBytes_[static_cast<std::size_t>(peer)] : 0;
}

RequestId MpiTransport::track(MPI_Request request, Rank peer, bool sending) {
  requests_.push_back(request);
  ids_.push_back(next_);
  peers_.push_back(sending ? peer + 1 : -1 - peer);
  return next_++;
}

RequestId MpiTransport::postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) {
  MPI_Request request;
  MPI_Isend(data, checkedCount(bytes), MPI_BYTE, peer, channel, communicator_, &request);
  return track(request, peer, true);
}

RequestId MpiTransport::postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) {
  MPI_Request request;
  MPI_Irecv(data, checkedCount(bytes), MPI_BYTE, peer, channel, communicator_, &request);
  return track(request, peer, false);
}

MpiTransport::Persistent& MpiTransport::keptFor(const RepeatedPost& repeated) {
  if (repeated.slot < 0 || repeated.slot >= static_cast<int>(persistent_.size()))
    throw std::logic_error("a repeated post names slot " + std::to_string(repeated.slot) + " of " +
                           std::to_string(persistent_.size()) + ": another transport's");
  return persistent_[static_cast<std::size_t>(repeated.slot)];
}

MPI_Request& MpiTransport::persistentFor(bool sending, Rank peer, Channel channel, const void* data, std::size_t bytes,
                                         RepeatedPost& repeated) {
  const int count = checkedCount(bytes);  // before anything changes: a post too large for MPI changes nothing
  if (repeated.slot >= 0) {
    Persistent& kept = keptFor(repeated);
    if (kept.data == data && kept.bytes == bytes && kept.peer == peer && kept.channel == channel && kept.sending == sending)
      return kept.request;
    MPI_Request_free(&kept.request);  // the post moved: its memory, most often
  } else if (!freeSlots_.empty()) {
    repeated.slot = freeSlots_.back();
    freeSlots_.pop_back();
  } else {
    repeated.slot = static_cast<int>(persistent_.size());
    persistent_.emplace_back();
  }
  Persistent& kept = keptFor(repeated);
  kept = {MPI_REQUEST_NULL, data, bytes, peer, channel, sending};
  if (sending)
    MPI_Send_init(data, count, MPI_BYTE, peer, channel, communicator_, &kept.request);
  else
    MPI_Recv_init(const_cast<void*>(data), count, MPI_BYTE, peer, channel, communicator_, &kept.request);
  return kept.request;
}

RequestId MpiTransport::postRepeatedSend(Rank peer, Channel channel, const void* data, std::size_t bytes, RepeatedPost& repeated) {
  MPI_Request& request = persistentFor(true, peer, channel, data, bytes, repeated);
  MPI_Start(&request);
  return track(request, peer, true);
}

RequestId MpiTransport::postRepeatedReceive(Rank peer, Channel channel, void* data, std::size_t bytes, RepeatedPost& repeated) {
  MPI_Request& request = persistentFor(false, peer, channel, data, bytes, repeated);
  MPI_Start(&request);
  return track(request, peer, false);
}

void MpiTransport::forgetRepeatedPost(RepeatedPost& repeated) {
  if (repeated.slot < 0) return;
  MPI_Request_free(&keptFor(repeated).request);
  freeSlots_.push_back(repeated.slot);
  repeated = {};
}

RequestId MpiTransport::postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) {
  reduceInto(into, local, from, count, type, op);
  finished_.push_back(next_);
  return next_++;
}

void MpiTransport::waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) {
  if (!finished_.empty()) {
    finished.insert(finished.end(), finished_.begin(), finished_.end());
    finished_.clear();
    return;
  }
  if (requests_.empty()) throw TransportError("waiting with nothing in flight");
  // A small message has often landed by now: that is no wait for the watchdog to hear of.
  if (testSome(finished)) return;
  if (!watchdog_) return pollFor(patience, finished);
  auto wait = watchdog_->waitingIn("a schedule's messages");
  pollFor(patience, finished);
}

std::string MpiTransport::describePending() const {
  std::set<Rank> sendingTo, receivingFrom;
  for (int peer : peers_) (peer > 0 ? sendingTo : receivingFrom).insert(peer > 0 ? peer - 1 : -1 - peer);
  return describePendingMessages(requests_.size(), sendingTo, receivingFrom);
}

namespace {

// A wait polls without yielding for its first polls: a peer on a core of its own answers a small message
// within them, and a sched_yield per poll costs about a microsecond itself (measured here: a 1 KiB exchange
// of two ranks takes 0.68 us spinning, 2.27 us yielding at every poll). Past them (some 10-20 us), every
// poll yields, so that ranks sharing a core (an oversubscribed job, the emulated cluster) let each other run.
constexpr unsigned kPollsBeforeYielding = 256;
// The clock is read once every this many polls: a read costs about as much as a poll.
constexpr unsigned kPollsPerClockRead = 16;

}  // namespace

bool MpiTransport::testSome(std::vector<RequestId>& finished) {
  indices_.resize(requests_.size());
  int count = 0;
  if (!errorsReturn_) {
    MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, indices_.data(), MPI_STATUSES_IGNORE);
  } else {
    statuses_.resize(requests_.size());
    if (MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, indices_.data(), statuses_.data()) !=
        MPI_SUCCESS)
      throwFailedMessage(count);
  }
  if (count <= 0) return false;  // MPI_UNDEFINED: none active
  for (int i = 0; i < count; ++i) {
    const auto index = static_cast<std::size_t>(indices_[static_cast<std::size_t>(i)]);
    finished.push_back(ids_[index]);
    // Testsome set the finished requests to MPI_REQUEST_NULL, except persistent ones, which it left
    // allocated and inactive for their next start: our copy of the handle goes the same way.
    requests_[index] = MPI_REQUEST_NULL;
  }
  // Drop the finished requests.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i)
    if (requests_[i] != MPI_REQUEST_NULL) {
      requests_[kept] = requests_[i];
      peers_[kept] = peers_[i];
      ids_[kept++] = ids_[i];
    }
  requests_.resize(kept);
  ids_.resize(kept);
  peers_.resize(kept);
  return true;
}

void MpiTransport::throwFailedMessage(int count) const {
  for (int i = 0; i < count; ++i) {
    const MPI_Status& status = statuses_[static_cast<std::size_t>(i)];
    if (status.MPI_ERROR == MPI_SUCCESS) continue;
    const int peer = peers_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(i)])];
    const bool sending = peer > 0;
    const int other = sending ? peer - 1 : -1 - peer;
    int errorClass = 0;
    MPI_Error_class(status.MPI_ERROR, &errorClass);
    if (errorClass == MPI_ERR_TRUNCATE)
      throw TransportError("a message from rank " + std::to_string(other) + " is longer than the receive rank " +
                           std::to_string(rank_) + " posted for it: the ranks disagree on this collective's count or "
                           "element type (DDLSCALE_CHECK_AGREEMENT=1 names both)");
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(status.MPI_ERROR, text, &length);
    throw TransportError(std::string(sending ? "a send to" : "a receive from") + " rank " + std::to_string(other) +
                         " failed: " + text);
  }
  throw TransportError("MPI_Testsome failed without naming the message");
}

void MpiTransport::pollFor(std::chrono::milliseconds patience, std::vector<RequestId>& finished) {
  // The patience counts from the first clock read, kPollsPerClockRead polls in: a wait that ends sooner
  // reads no clock at all.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  for (unsigned poll = 1;; ++poll) {
    if (testSome(finished)) return;
    if (poll % kPollsPerClockRead == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (!deadline) deadline = now + patience;
      if (now > *deadline) throw TransportError(describePending());
    }
    if (poll > kPollsBeforeYielding) sched_yield();
  }
}

Rank MpiTransport::waitForSender(Channel channel, std::size_t bytes, std::chrono::milliseconds patience) {
  // MPI_Iprobe, polled as pollFor polls: a blocking MPI_Probe could not give up at the timeout.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::optional<SilenceWatchdog::Wait> wait;  // the watchdog hears of a wait that lasts, as waitSome's
  for (unsigned poll = 1;; ++poll) {
    int found = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, channel, communicator_, &found, &status);
    if (found) {
      // Its size, before it is received: a longer message would be truncated (MPI_ERR_TRUNCATE), a
      // shorter one leave the buffer's end unwritten.
      int sent = 0;
      MPI_Get_count(&status, MPI_BYTE, &sent);
      if (static_cast<std::size_t>(sent) != bytes)
        throw TransportError("rank " + std::to_string(status.MPI_SOURCE) + " sent " + std::to_string(sent) + " bytes on channel " +
                             std::to_string(channel) + " where rank " + std::to_string(rank_) + " receives " + std::to_string(bytes));
      return status.MPI_SOURCE;
    }
    if (poll % kPollsPerClockRead == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (!deadline) {
        deadline = now + patience;
        if (watchdog_) wait.emplace(*watchdog_, "a receive from any rank");
      }
      if (now > *deadline)
        throw TransportError("a receive from any rank on channel " + std::to_string(channel) + ": no rank sent one in time");
    }
    if (poll > kPollsBeforeYielding) sched_yield();
  }
}

void MpiTransport::abortJob(const std::string& message) {
  if (watchdog_) watchdog_->stopJob(message);
  // A transport over its own duplicate is libddlscale's (overDuplicateOf); ddlrun's runs over its job's.
  std::fprintf(stderr, "%s: rank %d: %s\n", ownsCommunicator_ ? "ddlscale" : "ddlrun", rank_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(communicator_, 3);
  std::abort();  // MPI_Abort does not return
}

}  // namespace ddl
