// How the runner cuts a step into messages: pieces of pieceBytes, pipelined; a step of a few of the
// transport's eager messages in as few even eager messages as hold it (never more than kEagerPiecesPerStep of
// them, never larger than pieceBytes); and the same posts, repeated, on every run of a program it keeps prepared.

#include <gtest/gtest.h>

#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "runtime/program_runner.hpp"

namespace ddl {
namespace {

// Records the size of every send and receive; every post has finished by the next wait, and nothing moves.
class RecordingTransport final : public Transport {
 public:
  explicit RecordingTransport(std::size_t eager) : eager_(eager) {}
  Rank rank() const override { return 0; }
  int size() const override { return 2; }
  RequestId postSend(Rank, Channel, const void*, std::size_t bytes) override { return message(bytes); }
  RequestId postReceive(Rank, Channel, void*, std::size_t bytes) override { return message(bytes); }
  RequestId postRepeatedSend(Rank peer, Channel channel, const void* data, std::size_t bytes, RepeatedPost& repeated) override {
    note(repeated);
    return postSend(peer, channel, data, bytes);
  }
  RequestId postRepeatedReceive(Rank peer, Channel channel, void* data, std::size_t bytes, RepeatedPost& repeated) override {
    note(repeated);
    return postReceive(peer, channel, data, bytes);
  }
  void forgetRepeatedPost(RepeatedPost& repeated) override {
    if (repeated.slot >= 0) ++forgotten;
    repeated = {};
  }
  RequestId postReduce(void*, const void*, const void*, std::size_t, DataType, ReduceOp) override { return finish(); }
  void waitSome(std::chrono::milliseconds, std::vector<RequestId>& finished) override {
    finished.insert(finished.end(), done_.begin(), done_.end());
    done_.clear();
  }
  [[noreturn]] void abortJob(const std::string& message) override { throw std::logic_error(message); }
  std::size_t eagerBytes(Rank) const override { return eager_; }

  std::vector<std::size_t> messages;  // bytes of each send and receive, in post order
  int repeats = 0;                    // posts whose RepeatedPost had been filled in by an earlier run
  int forgotten = 0;

 private:
  void note(RepeatedPost& repeated) {
    if (repeated.slot >= 0) ++repeats;
    repeated.slot = nextSlot_++;
  }
  RequestId message(std::size_t bytes) {
    messages.push_back(bytes);
    return finish();
  }
  RequestId finish() {
    done_.push_back(next_);
    return next_++;
  }
  std::size_t eager_;
  RequestId next_ = 0;
  int nextSlot_ = 0;
  std::vector<RequestId> done_;
};

// The sizes of the messages rank 0 of a 2-rank ring allreduce of `bytes` posts: reduce-scatter and
// all-gather each send one half and receive the other.
std::vector<std::size_t> ringMessages(std::int64_t bytes, std::size_t eager, std::size_t pieceBytes) {
  const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "ring"),
                                         {CollectiveKind::Allreduce, 2, bytes / 4, 4}, {});
  RecordingTransport transport(eager);
  std::vector<float> buffer(static_cast<std::size_t>(bytes / 4));
  ProgramRunner runner(transport, {pieceBytes, std::chrono::milliseconds(1000)});
  runner.run(schedule.program(0), buffer.data(), DataType::Float32);
  return transport.messages;
}

std::vector<std::size_t> times(int count, std::vector<std::size_t> pattern) {
  std::vector<std::size_t> all;
  for (int i = 0; i < count; ++i) all.insert(all.end(), pattern.begin(), pattern.end());
  return all;
}

TEST(ProgramRunner, SendsAStepAsOneMessageWhereTheTransportHasNoEagerLimit) {
  EXPECT_EQ(ringMessages(20'000, 0, 1 << 20), times(4, {10'000}));
}

TEST(ProgramRunner, CutsAStepOfAFewEagerMessagesIntoEagerMessages) {
  // 10,000-byte halves under a 4032-byte eager limit: three messages each, as even as whole elements allow.
  EXPECT_EQ(ringMessages(20'000, 4032, 1 << 20), times(4, {3336, 3336, 3328}));
  // A step of exactly eight eager messages still goes in eight.
  EXPECT_EQ(ringMessages(16'000, 1000, 1 << 20), times(4, std::vector<std::size_t>(8, 1000)));
}

TEST(ProgramRunner, SendsAStepOfMoreThanEightEagerMessagesWhole) {
  EXPECT_EQ(ringMessages(20'000, 1000, 1 << 20), times(4, {10'000}));
}

TEST(ProgramRunner, SendsAStepThatFitsTheEagerLimitWhole) {
  EXPECT_EQ(ringMessages(8000, 4032, 1 << 20), times(4, {4000}));
}

TEST(ProgramRunner, NeverCutsEagerPiecesLargerThanItsPieces) {
  EXPECT_EQ(ringMessages(20'000, 4032, 2000), times(4, std::vector<std::size_t>(5, 2000)));
}

TEST(ProgramRunner, RepeatsTheSamePostsOnEveryRunOfAPreparedProgram) {
  const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "ring"),
                                         {CollectiveKind::Allreduce, 2, 5000, 4}, {});
  const Program program = schedule.program(0);
  RecordingTransport transport(4032);
  std::vector<float> buffer(5000);
  {
    ProgramRunner runner(transport, {1 << 20, std::chrono::milliseconds(1000)});
    runner.run(program, buffer.data(), DataType::Float32);
    const auto posts = static_cast<int>(transport.messages.size());
    EXPECT_EQ(transport.repeats, 0);
    runner.run(program, buffer.data(), DataType::Float32);
    EXPECT_EQ(transport.repeats, posts);  // every post of the second run had been made on the first
    EXPECT_EQ(transport.forgotten, 0);
  }
  // The runner gone, every post it kept is let go.
  EXPECT_EQ(transport.forgotten, static_cast<int>(transport.messages.size()) / 2);
}

}  // namespace
}  // namespace ddl
