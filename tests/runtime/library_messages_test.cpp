// libddlscale's C API under mpirun (tests/runtime/library_api_fixture.hpp), messages between ranks:
// point-to-point messages match their tag in the order issued, a receive from any rank names its sender, an
// all-to-allv puts every block where its counts say, and requests complete in any order they are waited on.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "ddlscale/ddlscale.h"

#include "tests/runtime/library_api_fixture.hpp"

namespace {

using namespace ddl::testing;  // the fixture, the job's ranks and the shared checks

TEST_F(LibraryApi, PointToPointMessagesMatchTheirTagInTheOrderIssued) {
  if (size_ < 2) GTEST_SKIP() << "needs two ranks";
  const int next = (rank_ + 1) % size_, previous = (rank_ + size_ - 1) % size_;
  std::vector<std::int64_t> five(7, 500 + rank_), zero(3, rank_), firstZero(3, -1), secondZero(3, -1), gotFive(7, -1);
  std::vector<std::int64_t> zeroAgain(3, 1000 + rank_);
  // Tag 5 goes first but is received last: tags keep their own order.
  ddl_request requests[5];
  ASSERT_EQ(ddl_isend(comm_, five.data(), five.size(), DDL_INT64, next, 5, &requests[0]), DDL_SUCCESS) << ddl_last_error();
  ASSERT_EQ(ddl_isend(comm_, zero.data(), zero.size(), DDL_INT64, next, 0, &requests[1]), DDL_SUCCESS) << ddl_last_error();
  ASSERT_EQ(ddl_isend(comm_, zeroAgain.data(), zeroAgain.size(), DDL_INT64, next, 0, &requests[2]), DDL_SUCCESS);
  ASSERT_EQ(ddl_irecv(comm_, firstZero.data(), firstZero.size(), DDL_INT64, previous, 0, &requests[3]), DDL_SUCCESS);
  ASSERT_EQ(ddl_irecv(comm_, secondZero.data(), secondZero.size(), DDL_INT64, previous, 0, &requests[4]), DDL_SUCCESS);
  ASSERT_EQ(ddl_recv(comm_, gotFive.data(), gotFive.size(), DDL_INT64, previous, 5), DDL_SUCCESS) << ddl_last_error();
  for (ddl_request request : requests) ASSERT_EQ(ddl_wait(request), DDL_SUCCESS) << ddl_last_error();
  EXPECT_EQ(firstZero, std::vector<std::int64_t>(3, previous));
  EXPECT_EQ(secondZero, std::vector<std::int64_t>(3, 1000 + previous));
  EXPECT_EQ(gotFive, std::vector<std::int64_t>(7, 500 + previous));
  // A blocking exchange in an order that cannot deadlock: even ranks send first.
  if (size_ % 2 == 0) {
    std::vector<float> out(100000, static_cast<float>(rank_)), in(100000, -1.0f);
    const int partner = rank_ ^ 1;
    if (rank_ % 2 == 0) {
      ASSERT_EQ(ddl_send(comm_, out.data(), out.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
      ASSERT_EQ(ddl_recv(comm_, in.data(), in.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
    } else {
      ASSERT_EQ(ddl_recv(comm_, in.data(), in.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
      ASSERT_EQ(ddl_send(comm_, out.data(), out.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
    }
    EXPECT_EQ(in, std::vector<float>(100000, static_cast<float>(partner)));
  }
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1000, rank_, size_, true), 0) << "collectives after point-to-point";
}

TEST_F(LibraryApi, AReceiveFromAnyRankTakesEachSendersMessagesInTheirOrderAndNamesTheSender) {
  if (size_ < 2) GTEST_SKIP() << "needs two ranks";
  // Every other rank sends rank 0 two small messages on tag 3, then one above the TCP eager limit (asked
  // for, then cleared) on tag 4; rank 0 receives them all from any rank, the large ones with requests.
  constexpr std::size_t kLarge = 100000;  // 400 kB of int32
  if (rank_ != 0) {
    std::vector<std::int32_t> first(4, 10 * rank_), second(4, 10 * rank_ + 1), large(kLarge, 10 * rank_ + 2);
    ASSERT_EQ(ddl_send(comm_, first.data(), first.size(), DDL_INT32, 0, 3), DDL_SUCCESS) << ddl_last_error();
    ASSERT_EQ(ddl_send(comm_, second.data(), second.size(), DDL_INT32, 0, 3), DDL_SUCCESS) << ddl_last_error();
    ASSERT_EQ(ddl_send(comm_, large.data(), large.size(), DDL_INT32, 0, 4), DDL_SUCCESS) << ddl_last_error();
  } else {
    std::map<int, std::vector<std::int32_t>> seen;  // by sender, the values in the order they came
    for (int k = 0; k < 2 * (size_ - 1); ++k) {
      std::vector<std::int32_t> message(4, -1);
      int source = -1;
      ASSERT_EQ(ddl_recv_any(comm_, message.data(), message.size(), DDL_INT32, 3, &source), DDL_SUCCESS) << ddl_last_error();
      ASSERT_GE(source, 1);
      ASSERT_LT(source, size_);
      EXPECT_EQ(message, std::vector<std::int32_t>(4, message[0])) << "one message, whole";
      seen[source].push_back(message[0]);
    }
    std::vector<std::vector<std::int32_t>> large(static_cast<std::size_t>(size_ - 1), std::vector<std::int32_t>(kLarge, -1));
    std::vector<int> sources(large.size(), -1);
    std::vector<ddl_request> requests(large.size());
    for (std::size_t k = 0; k < large.size(); ++k)
      ASSERT_EQ(ddl_irecv_any(comm_, large[k].data(), kLarge, DDL_INT32, 4, &sources[k], &requests[k]), DDL_SUCCESS) << ddl_last_error();
    for (std::size_t k = 0; k < large.size(); ++k) {
      ASSERT_EQ(ddl_wait(requests[k]), DDL_SUCCESS) << ddl_last_error();
      EXPECT_EQ(large[k], std::vector<std::int32_t>(kLarge, 10 * sources[k] + 2)) << "from rank " << sources[k];
      seen[sources[k]].push_back(large[k][0]);
    }
    for (int r = 1; r < size_; ++r)
      EXPECT_EQ(seen[r], (std::vector<std::int32_t>{10 * r, 10 * r + 1, 10 * r + 2})) << "rank " << r << "'s, in its order";
  }
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1000, rank_, size_, true), 0) << "collectives after receives from any rank";
}

TEST_F(LibraryApi, AnAllToAllvPutsEveryBlockWhereItsCountsSay) {
  // Rank r sends q + r + 1 elements to rank q, valued 100 r + q, laid out in rank order.
  const auto ranks = static_cast<std::size_t>(size_);
  std::vector<size_t> sendCounts(ranks), sendOffsets(ranks), recvCounts(ranks), recvOffsets(ranks);
  std::size_t sendTotal = 0, recvTotal = 0;
  for (std::size_t q = 0; q < ranks; ++q) {
    sendCounts[q] = q + static_cast<std::size_t>(rank_) + 1;
    recvCounts[q] = static_cast<std::size_t>(rank_) + q + 1;
    sendOffsets[q] = sendTotal;
    recvOffsets[q] = recvTotal;
    sendTotal += sendCounts[q];
    recvTotal += recvCounts[q];
  }
  std::vector<std::int32_t> send(sendTotal), recv(recvTotal, -1);
  for (std::size_t q = 0; q < ranks; ++q)
    std::fill_n(send.begin() + static_cast<std::ptrdiff_t>(sendOffsets[q]), sendCounts[q], 100 * rank_ + static_cast<int>(q));
  ASSERT_EQ(ddl_alltoallv(comm_, send.data(), sendCounts.data(), sendOffsets.data(), recv.data(), recvCounts.data(),
                          recvOffsets.data(), DDL_INT32),
            DDL_SUCCESS)
      << ddl_last_error();
  int wrong = 0;
  for (std::size_t q = 0; q < ranks; ++q)
    for (std::size_t i = 0; i < recvCounts[q]; ++i) wrong += recv[recvOffsets[q] + i] != 100 * static_cast<int>(q) + rank_;
  EXPECT_EQ(wrong, 0);
}

TEST_F(LibraryApi, RequestsCompleteWhicheverOrderTheyAreWaitedIn) {
  const std::size_t count = 20000;
  std::vector<std::vector<float>> buffers(4, std::vector<float>(count));
  std::vector<ddl_request> requests(buffers.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    for (std::size_t i = 0; i < count; ++i) buffers[b][i] = valueOf(i + b, rank_);
    ASSERT_EQ(ddl_iallreduce(comm_, buffers[b].data(), buffers[b].data(), count, DDL_FLOAT32, DDL_SUM, &requests[b]), DDL_SUCCESS);
  }
  int done = 0;
  ASSERT_EQ(ddl_test(requests[3], &done), DDL_SUCCESS);
  for (std::size_t b = buffers.size(); b-- > 0;) ASSERT_EQ(ddl_wait(requests[b]), DDL_SUCCESS) << ddl_last_error();
  int wrong = 0;
  for (std::size_t b = 0; b < buffers.size(); ++b)
    for (std::size_t i = 0; i < count; ++i) wrong += buffers[b][i] != sumOf(i + b, size_);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
