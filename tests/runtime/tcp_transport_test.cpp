// The TCP transport and the mesh that starts it, ranks as threads of this process on loopback, each with
// connections of its own as separate processes would have: every algorithm exact; messages matched per
// peer and channel in the order posted, whether they arrive before or after their receive; two ranks that
// send each other more than TCP's windows hold at once both finish; a silent peer ends a wait at its
// deadline, naming it; a peer that closes is an error only while something is pending with it; and the
// ranks that start the mesh with a different size, or the same rank twice, all fail alike.

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <functional>
#include <limits>
#include <tuple>
#include <numeric>
#include <thread>

#include "common/invalid_argument.hpp"
#include "runtime/in_process/thread_world.hpp"
#include "runtime/tcp/tcp_mesh.hpp"
#include "runtime/tcp/tcp_transport.hpp"
#include "tests/runtime/every_algorithm_exact.hpp"

namespace ddl {
namespace {

using tcp::Clock;
constexpr auto kPatience = std::chrono::seconds(20);

// Rank 0's listener, on a port the system picks, so that tests never collide with each other or a job.
struct Root {
  tcp::Listener listener{tcp::Endpoint{htonl(INADDR_LOOPBACK), 0}};
  tcp::Endpoint at() { return tcp::Endpoint{htonl(INADDR_LOOPBACK), listener.port()}; }
};

constexpr std::size_t kAllRendezvous = 0;
constexpr std::size_t kAllEager = std::numeric_limits<std::size_t>::max();

// Runs `rank` on `ranks` threads, each with its own end of the mesh, and joins them.
void runTcpJob(int ranks, const std::function<void(TcpTransport&, World&)>& rank,
               std::size_t eagerLimit = TcpTransport::kDefaultEagerLimit) {
  Root root;
  ThreadGroup group(ranks);
  std::vector<std::thread> threads;
  for (Rank r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      TcpTransport transport(r, tcp::connectMesh(r, ranks, root.at(), Clock::now() + kPatience, r == 0 ? &root.listener : nullptr),
                             eagerLimit);
      ThreadWorld world(group, r);
      rank(transport, world);
    });
  for (std::thread& thread : threads) thread.join();
}

void waitFor(Transport& transport, std::size_t requests) {
  for (std::size_t finished = 0; finished < requests;) finished += waitSomeWithin(transport, kPatience).size();
}

// Every rank count, with every message eager, with the default limit, and with every message waiting for
// its receive.
class TcpEveryRankCount : public ::testing::TestWithParam<std::tuple<int, std::size_t>> {};

TEST_P(TcpEveryRankCount, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  const auto [ranks, eagerLimit] = GetParam();
  std::vector<testing::ExactnessResult> results;
  runTcpJob(ranks, [&](TcpTransport& transport, World& world) {
    // Pieces of 16 KiB, so that large steps are pipelined as many messages.
    auto mine = testing::runEveryAlgorithm(world, transport, {DataType::Float32, DataType::BFloat16}, {0, 1, 7, (1 << 16) + 3},
                                           RunOptions{16 * 1024, std::chrono::milliseconds(20'000)});
    if (world.rank() == 0) results = std::move(mine);
  }, eagerLimit);
  ASSERT_FALSE(results.empty());
  for (const testing::ExactnessResult& result : results) EXPECT_EQ(result.wrong, 0) << result.description;
}

INSTANTIATE_TEST_SUITE_P(Ranks, TcpEveryRankCount,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4, 5, 6, 8),
                                            ::testing::Values(kAllEager, TcpTransport::kDefaultEagerLimit, kAllRendezvous)),
                         [](const ::testing::TestParamInfo<std::tuple<int, std::size_t>>& info) {
                           const std::size_t limit = std::get<1>(info.param);
                           return std::to_string(std::get<0>(info.param)) + "Ranks" +
                                  (limit == kAllEager ? "AllEager" : limit == kAllRendezvous ? "AllRendezvous" : "Default");
                         });

class TcpEagerLimit : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TcpEagerLimit, MessagesAreMatchedPerChannelInOrderWhetherTheyComeBeforeOrAfterTheirReceive) {
  runTcpJob(2, [](TcpTransport& transport, World& world) {
    const float first = 1.5f, second = 2.5f, other = 3.5f, last = 4.5f;
    if (world.rank() == 0) {
      transport.postSend(1, 0, &first, sizeof first);
      transport.postSend(1, 1, &other, sizeof other);
      transport.postSend(1, 0, &second, sizeof second);
      transport.postSend(1, 2, nullptr, 0);
      transport.postSend(1, 5, &last, sizeof last);
      waitFor(transport, 5);
      world.barrier();
      transport.postSend(1, 0, &other, sizeof other);  // after its receive
      waitFor(transport, 1);
    } else {
      // Waiting for the last message reads the four before it, which have no receive yet.
      float got[5] = {0, 0, 0, 0, 0};
      transport.postReceive(0, 5, &got[4], sizeof(float));
      waitFor(transport, 1);
      transport.postReceive(0, 2, nullptr, 0);
      transport.postReceive(0, 1, &got[2], sizeof(float));
      transport.postReceive(0, 0, &got[0], sizeof(float));
      transport.postReceive(0, 0, &got[1], sizeof(float));
      waitFor(transport, 4);
      transport.postReceive(0, 0, &got[3], sizeof(float));
      world.barrier();
      waitFor(transport, 1);
      EXPECT_EQ(got[0], first);
      EXPECT_EQ(got[1], second);
      EXPECT_EQ(got[2], other);
      EXPECT_EQ(got[3], other);
      EXPECT_EQ(got[4], last);
    }
  }, GetParam());
}

TEST_P(TcpEagerLimit, TwoRanksSendingEachOtherMoreThanTheWindowsHoldBothFinish) {
  // 64 MiB each way, every receive posted after its send: neither rank may wait for the other to read.
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  runTcpJob(2, [&](TcpTransport& transport, World& world) {
    std::vector<char> out(kBytes), in(kBytes);
    std::iota(out.begin(), out.end(), static_cast<char>(world.rank() * 7));
    const Rank peer = 1 - world.rank();
    transport.postSend(peer, 3, out.data(), kBytes);
    transport.postReceive(peer, 3, in.data(), kBytes);
    waitFor(transport, 2);
    std::vector<char> expected(kBytes);
    std::iota(expected.begin(), expected.end(), static_cast<char>(peer * 7));
    EXPECT_TRUE(in == expected);
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Limits, TcpEagerLimit, ::testing::Values(kAllEager, TcpTransport::kDefaultEagerLimit, kAllRendezvous),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return info.param == kAllEager ? "AllEager" : info.param == kAllRendezvous ? "AllRendezvous" : "Default";
                         });

TEST(TcpTransport, AMessageAboveTheEagerLimitGoesOnlyOnceItsReceiveIsPosted) {
  constexpr std::size_t kBytes = 1 << 20;  // which the sockets of loopback would take eagerly at once
  runTcpJob(2, [&](TcpTransport& transport, World& world) {
    std::vector<char> data(kBytes, static_cast<char>(world.rank() + 1));
    if (world.rank() == 0) {
      transport.postSend(1, 0, data.data(), kBytes);
      try {
        waitSomeWithin(transport, std::chrono::milliseconds(300));
        ADD_FAILURE() << "a send above the eager limit finished before its receive was posted";
      } catch (const TransportError& error) {
        EXPECT_EQ(std::string(error.what()), "1 message still waits for its peer: sends to rank 1");
      }
      world.barrier();
      waitFor(transport, 1);
    } else {
      world.barrier();
      transport.postReceive(0, 0, data.data(), kBytes);
      waitFor(transport, 1);
      EXPECT_EQ(data.front(), 1);
      EXPECT_EQ(data.back(), 1);
    }
  });
}

TEST(TcpTransport, BothSidesOfAMessageMustAgreeOnItsSize) {
  runTcpJob(2, [](TcpTransport& transport, World& world) {
    double value = 1;
    if (world.rank() == 0) {
      transport.postSend(1, 0, &value, sizeof value);
      waitFor(transport, 1);
    } else {
      float smaller = 0;
      transport.postReceive(0, 0, &smaller, sizeof smaller);
      try {
        waitFor(transport, 1);
        ADD_FAILURE() << "a message of 8 bytes was taken by a receive of 4";
      } catch (const TransportError& error) {
        EXPECT_NE(std::string(error.what()).find("rank 0 sent 8 bytes on channel 0 where rank 1 receives 4"), std::string::npos)
            << error.what();
      }
    }
    world.barrier();
  });
}

TEST(TcpTransport, AWaitForASilentPeerEndsAtItsDeadlineNamingThePeer) {
  runTcpJob(3, [](TcpTransport& transport, World& world) {
    if (world.rank() == 0) {
      float value = 0;
      transport.postReceive(2, 0, &value, sizeof value);
      const auto started = Clock::now();
      try {
        waitSomeWithin(transport, std::chrono::milliseconds(300));
        ADD_FAILURE() << "a wait for a message never sent returned";
      } catch (const TransportError& error) {
        EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(300));
        EXPECT_LT(Clock::now() - started, std::chrono::seconds(3));
        EXPECT_EQ(std::string(error.what()), "1 message still waits for its peer: receives from rank 2");
      }
    }
    world.barrier();
  });
}

TEST(TcpTransport, APeerThatClosesIsAnErrorOnlyWhileSomethingIsPendingWithIt) {
  ThreadGroup group(3);
  Root root;
  std::vector<std::thread> threads;
  for (Rank r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      auto transport = std::make_unique<TcpTransport>(
          r, tcp::connectMesh(r, 3, root.at(), Clock::now() + kPatience, r == 0 ? &root.listener : nullptr));
      ThreadWorld world(group, r);
      float value = 1;
      if (r == 2) {  // finishes first, with nothing pending: rank 0 and 1 go on without it
        transport.reset();
        for (int step = 0; step < 3; ++step) world.barrier();
        return;
      }
      world.barrier();
      if (r == 0) {
        float got = 0;
        transport->postReceive(1, 0, &got, sizeof got);
        waitFor(*transport, 1);
        EXPECT_EQ(got, 1.0f);
        transport->postReceive(1, 0, &got, sizeof got);  // never sent: rank 1 closes instead
        world.barrier();
        try {
          waitFor(*transport, 1);
          ADD_FAILURE() << "a receive from a rank that closed its connection finished";
        } catch (const TransportError& error) {
          EXPECT_NE(std::string(error.what()).find("rank 1 closed its connection while rank 0 had messages pending with it"),
                    std::string::npos)
              << error.what();
        }
        EXPECT_THROW(transport->postSend(2, 0, &value, sizeof value), TransportError) << "rank 2 is gone";
      } else {
        transport->postSend(0, 0, &value, sizeof value);
        waitFor(*transport, 1);
        world.barrier();
        transport.reset();
      }
      world.barrier();
    });
  for (std::thread& thread : threads) thread.join();
}

// Starts the mesh with each rank's own idea of (rank, size); returns what each rank's start threw.
std::vector<std::string> startMesh(const std::vector<std::pair<Rank, int>>& ranks, std::chrono::milliseconds patience) {
  Root root;
  std::vector<std::string> failures(ranks.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    threads.emplace_back([&, i] {
      const auto [rank, size] = ranks[i];
      try {
        tcp::connectMesh(rank, size, root.at(), Clock::now() + patience, rank == 0 ? &root.listener : nullptr);
      } catch (const std::exception& error) {
        failures[i] = error.what();
      }
    });
  for (std::thread& thread : threads) thread.join();
  return failures;
}

TEST(TcpMesh, RanksThatDisagreeOnTheSizeAllFailNamingTheRankThatDisagrees) {
  const std::vector<std::string> failures = startMesh({{0, 3}, {1, 3}, {2, 4}}, kPatience);
  for (const std::string& failure : failures) {
    EXPECT_NE(failure.find("size: rank 2 (from 127.0.0.1:"), std::string::npos) << failure;
    EXPECT_NE(failure.find(") says the job has 4 ranks; rank 0 says 3"), std::string::npos) << failure;
  }
}

TEST(TcpMesh, TwoRanksWithTheSameNumberAllFail) {
  const std::vector<std::string> failures = startMesh({{0, 3}, {1, 3}, {1, 3}}, kPatience);
  for (const std::string& failure : failures) EXPECT_EQ(failure.rfind("rank: two ranks say they are rank 1 (from ", 0), 0u) << failure;
}

TEST(TcpMesh, ARankThatNeverComesEndsTheWaitAtTheDeadline) {
  const std::vector<std::string> failures = startMesh({{0, 3}, {1, 3}}, std::chrono::milliseconds(500));
  EXPECT_EQ(failures[0], "no connection from 1 of the job's 3 ranks in time");
  // At its own deadline, or when rank 0 gives up and closes first.
  EXPECT_EQ(failures[1].rfind("rank 0 (waiting for every rank to join) ", 0), 0u) << failures[1];
}

TEST(TcpMesh, AConnectionThatIsNotARankIsDroppedAndTheJobStillStarts) {
  Root root;
  std::thread stranger([&] {
    tcp::Socket socket = tcp::connectTo(root.at(), Clock::now() + kPatience, "rank 0");
    const char request[] = "GET / HTTP/1.0\r\n\r\n";
    ::send(socket.get(), request, sizeof request, MSG_NOSIGNAL);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // after the stranger
    TcpTransport transport(1, tcp::connectMesh(1, 2, root.at(), Clock::now() + kPatience));
    const float value = 4;
    transport.postSend(0, 0, &value, sizeof value);
    waitFor(transport, 1);
  });
  TcpTransport transport(0, tcp::connectMesh(0, 2, root.at(), Clock::now() + kPatience, &root.listener));
  float got = 0;
  transport.postReceive(1, 0, &got, sizeof got);
  waitFor(transport, 1);
  EXPECT_EQ(got, 4.0f);
  stranger.join();
  other.join();
}

TEST(TcpEndpoint, AddressesAreHostColonPortAndBadOnesNameTheField) {
  EXPECT_EQ(tcp::parseEndpoint("127.0.0.1:29500", "root_address").text(), "127.0.0.1:29500");
  EXPECT_EQ(tcp::parseEndpoint("localhost:1", "root_address").text(), "127.0.0.1:1");
  for (const char* bad : {"127.0.0.1", ":29500", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:2x", "127.0.0.1:-1"}) {
    try {
      tcp::parseEndpoint(bad, "root_address");
      ADD_FAILURE() << bad << " was taken";
    } catch (const InvalidArgument& error) {
      EXPECT_EQ(error.field(), "root_address") << bad;
    }
  }
}

}  // namespace
}  // namespace ddl
