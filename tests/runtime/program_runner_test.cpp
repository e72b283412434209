// How the runner cuts a step into messages: pieces of pieceBytes, pipelined; a step of a few of the
// transport's eager messages in as few even eager messages as hold it (never more than kEagerPiecesPerStep of
// them, never larger than pieceBytes); the same posts, repeated, on every run of a program it keeps prepared;
// and staged copies placed as their destinations are, so that every reduction can take the vector path.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "runtime/program_runner.hpp"
#include "runtime/reduce_alignment.hpp"

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
  RequestId postReduce(void* into, const void* local, const void* from, std::size_t, DataType, ReduceOp) override {
    reductions.push_back({reduceMisalignment(into), reduceMisalignment(local), reduceMisalignment(from)});
    return finish();
  }
  void waitSome(std::chrono::milliseconds, std::vector<RequestId>& finished) override {
    finished.insert(finished.end(), done_.begin(), done_.end());
    done_.clear();
  }
  [[noreturn]] void abortJob(const std::string& message) override { throw std::logic_error(message); }
  std::size_t eagerBytes(Rank) const override { return eager_; }
  void* allocate(std::size_t bytes) override {
    postsBeforeEachAllocation.push_back(next_);
    return Transport::allocate(bytes);
  }

  std::vector<std::size_t> messages;  // bytes of each send and receive, in post order
  // Each reduction's three pointers' distances past a 16-byte boundary: into, local, from (the staged copy).
  struct Misalignments {
    std::size_t into, local, from;
  };
  std::vector<Misalignments> reductions;
  std::vector<RequestId> postsBeforeEachAllocation;  // how many posts had been made when each block was allocated
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

// Allocating GPU memory mid-run may wait for the device, and so for an NCCL kernel waiting for a peer that
// waits for this rank: every receive-reduce staging block is allocated before the first post, once.
TEST(ProgramRunner, AllocatesEveryStagingBlockBeforeItsFirstPost) {
  const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "halving-doubling"),
                                         {CollectiveKind::Allreduce, 8, 10'000, 4}, {});
  RecordingTransport transport(0);
  std::vector<float> buffer(10'000);
  ProgramRunner runner(transport, {1 << 20, std::chrono::milliseconds(1000)});
  runner.run(schedule.program(3), buffer.data(), DataType::Float32);
  ASSERT_FALSE(transport.postsBeforeEachAllocation.empty());
  for (RequestId posts : transport.postsBeforeEachAllocation) EXPECT_EQ(posts, 0);
  const std::size_t blocks = transport.postsBeforeEachAllocation.size();
  runner.run(schedule.program(3), buffer.data(), DataType::Float32);
  EXPECT_EQ(transport.postsBeforeEachAllocation.size(), blocks);  // the second run allocates nothing
  // A wider type than the blocks were made for gets its blocks before its first post too.
  std::vector<double> wide(10'000);
  const RequestId before = static_cast<RequestId>(transport.messages.size() + transport.reductions.size());
  runner.run(schedule.program(3), wide.data(), DataType::Float64);
  for (std::size_t b = blocks; b < transport.postsBeforeEachAllocation.size(); ++b)
    EXPECT_EQ(transport.postsBeforeEachAllocation[b], before);
}

// A 16-bit bucket's blocks start anywhere: 3 ranks of a 10,001-element ring split it at elements 3334 and
// 6668 (6668 and 13,336 bytes, 12 and 8 past a 16-byte boundary), and a bucket inside a larger buffer starts
// off one too. The staged copy each block is received into sits as its destination does, in pieces too.
TEST(ProgramRunner, PlacesEachStagedCopyAsFarPastA16ByteBoundaryAsItsDestination) {
  const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "ring"),
                                         {CollectiveKind::Allreduce, 3, 10'001, 2}, {});
  for (const std::size_t bucketStart : {0, 2, 6}) {
    for (const std::size_t pieceBytes : {std::size_t{1} << 20, std::size_t{1000}}) {
      RecordingTransport transport(0);
      std::vector<std::uint16_t> buffer(10'001 + 8);
      ProgramRunner runner(transport, {pieceBytes, std::chrono::milliseconds(1000)});
      runner.run(schedule.program(0), reinterpret_cast<char*>(buffer.data()) + bucketStart, DataType::BFloat16);
      ASSERT_FALSE(transport.reductions.empty());
      for (const auto& [into, local, from] : transport.reductions) {
        EXPECT_EQ(from, into) << "bucket at byte " << bucketStart << ", pieces of " << pieceBytes << " bytes";
        EXPECT_EQ(local, into);
      }
    }
  }
}

}  // namespace
}  // namespace ddl
