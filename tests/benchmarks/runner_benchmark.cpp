// What the runtime's runner itself costs per run of a program: rank 0's program of an allreduce, run over
// and over through a transport on which every post has finished by the next wait and nothing moves. The
// time per run is the bookkeeping a real transport's messages come on top of: at 4 KiB on 2 ranks a whole
// MPI allreduce takes 1-4 us on this machine kind, so tens of nanoseconds show.
// Not a test: machines are noisy, so run it several times and quote medians (tests/benchmarks/README.md).
//
//   runner_benchmark ALGORITHM RANKS BYTES [RUNS] [PIECE_BYTES]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "runtime/program_runner.hpp"

namespace {

// Every post finishes at once: the next wait returns it. No byte moves and no sum is taken.
class InstantTransport final : public ddl::Transport {
 public:
  ddl::Rank rank() const override { return 0; }
  int size() const override { return 2; }
  ddl::RequestId postSend(ddl::Rank, ddl::Channel, const void*, std::size_t) override { return post(); }
  ddl::RequestId postReceive(ddl::Rank, ddl::Channel, void*, std::size_t) override { return post(); }
  ddl::RequestId postReduce(void*, const void*, const void*, std::size_t, ddl::DataType, ddl::ReduceOp) override { return post(); }
  void waitSome(std::chrono::milliseconds, std::vector<ddl::RequestId>& finished) override {
    finished.insert(finished.end(), done_.begin(), done_.end());
    done_.clear();
  }
  [[noreturn]] void abortJob(const std::string& message) override {
    std::fprintf(stderr, "runner_benchmark: %s\n", message.c_str());
    std::exit(3);
  }
  long long posts = 0;

 private:
  ddl::RequestId post() {
    done_.push_back(next_);
    ++posts;
    return next_++;
  }
  ddl::RequestId next_ = 0;
  std::vector<ddl::RequestId> done_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ALGORITHM RANKS BYTES [RUNS] [PIECE_BYTES]\n", argv[0]);
    return 2;
  }
  const int ranks = std::atoi(argv[2]);
  const long long bytes = std::atoll(argv[3]);
  const long long runs = argc > 4 ? std::atoll(argv[4]) : 1'000'000;
  ddl::RunOptions options;
  if (argc > 5) options.pieceBytes = static_cast<std::size_t>(std::atoll(argv[5]));
  const ddl::CollectiveSpec spec{ddl::CollectiveKind::Allreduce, ranks, bytes / 4, 4};
  const ddl::Schedule schedule = ddl::makeSchedule(ddl::findAlgorithm(spec.kind, argv[1]), spec, {});
  const ddl::Program program = schedule.program(0);
  std::vector<float> buffer(static_cast<std::size_t>(spec.elements) + 1);
  InstantTransport transport;
  ddl::ProgramRunner runner(transport, options);
  runner.run(program, buffer.data(), ddl::DataType::Float32);  // prepares it
  transport.posts = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long long run = 0; run < runs; ++run) runner.run(program, buffer.data(), ddl::DataType::Float32);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s, %d ranks, %lld bytes, rank 0 (%d steps, %lld posts per run): %.1f ns per run, %.1f ns per post\n",
              schedule.description().c_str(), ranks, bytes, program.size(), transport.posts / runs,
              seconds / static_cast<double>(runs) * 1e9, seconds / static_cast<double>(transport.posts) * 1e9);
  return 0;
}
