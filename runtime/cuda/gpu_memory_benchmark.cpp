// ddl_gpu_memory_benchmark: how fast one GPU moves and sums memory, the numbers a one-GPU topology needs
// and the reduction kernel's yardstick. For each size: a device-to-device cudaMemcpyAsync, and launchReduce
// out of place (c = a + b) and in place (a += b), each timed with CUDA events over many runs; and the
// latency of one small copy as the CUDA peer transport sees it (enqueue, event, poll until done).
//
// Bandwidths are given two ways: "buffer" is bytes of the buffer per second (what a topology's
// bandwidth_Bps and reduce_Bps mean), "traffic" is bytes read plus bytes written per second (a copy moves
// 2 bytes of traffic per buffer byte, a sum 3), the fair ground on which the kernel is compared with the copy.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/byte_sizes.hpp"
#include "common/output_file.hpp"
#include "common/invalid_argument.hpp"
#include "runtime/cuda/cuda_error.hpp"
#include "runtime/transport.hpp"
#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/reduce_kernels.hpp"

namespace {

using ddl::DataType;

// Seconds per run of `work`, timed by events around `runs` runs after one untimed run.
template <class Work>
double secondsPerRun(cudaStream_t stream, int runs, Work&& work) {
  cudaEvent_t start, stop;
  DDL_CUDA(cudaEventCreate(&start));
  DDL_CUDA(cudaEventCreate(&stop));
  work();
  DDL_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < runs; ++i) work();
  DDL_CUDA(cudaEventRecord(stop, stream));
  DDL_CUDA(cudaEventSynchronize(stop));
  float milliseconds = 0;
  DDL_CUDA(cudaEventElapsedTime(&milliseconds, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return milliseconds / 1e3 / runs;
}

// The median time from enqueuing a small copy to seeing its event finished, polling as the transport does.
double smallCopyLatency(void* to, const void* from, cudaStream_t stream) {
  std::vector<double> samples;
  cudaEvent_t done;
  DDL_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  for (int i = 0; i < 201; ++i) {
    const auto start = std::chrono::steady_clock::now();
    DDL_CUDA(cudaMemcpyAsync(to, from, 8, cudaMemcpyDeviceToDevice, stream));
    DDL_CUDA(cudaEventRecord(done, stream));
    while (cudaEventQuery(done) == cudaErrorNotReady) {
    }
    samples.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  cudaEventDestroy(done);
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ddl_gpu_memory_benchmark - device-to-device copy and reduction kernel bandwidth on one GPU"};
  std::string minBytes = "1M", maxBytes = "1G", typeName = "float32", out;
  double factor = 4;
  int runs = 20;
  bool json = false;
  app.add_option("-b,--min-bytes", minBytes, "Smallest buffer")->capture_default_str();
  app.add_option("-e,--max-bytes", maxBytes, "Largest buffer")->capture_default_str();
  app.add_option("-f,--factor", factor, "Size multiplier between rows")->capture_default_str();
  app.add_option("-n,--iters", runs, "Timed runs per measurement")->capture_default_str();
  app.add_option("--type", typeName, "float32, float64, bfloat16 or float16")->capture_default_str();
  app.add_flag("--json", json, "JSON instead of the table");
  app.add_option("--out", out, "With --json: write to this file");
  try {
    app.parse(argc, argv);
    const std::int64_t min = ddl::parseByteSize(minBytes, "--min-bytes");
    const std::int64_t max = ddl::parseByteSize(maxBytes, "--max-bytes");
    if (min < 16 || min > max) throw ddl::InvalidArgument("--min-bytes", "must be at least 16 and at most --max-bytes");
    if (!(factor > 1)) throw ddl::InvalidArgument("--factor", "must be greater than 1");
    if (runs < 1) throw ddl::InvalidArgument("--iters", "must be at least 1");
    const auto type = ddl::parseDataType(typeName);
    if (!type) throw ddl::InvalidArgument("--type", "'" + typeName + "' is not float32, float64, bfloat16 or float16");
    std::string why;
    if (ddl::cudaDevices(&why) == 0) {
      std::cerr << "ddl_gpu_memory_benchmark: no CUDA GPU: " << why << '\n';
      return 77;
    }

    cudaDeviceProp properties{};
    DDL_CUDA(cudaGetDeviceProperties(&properties, 0));
    cudaStream_t stream;
    DDL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<void*> buffers(3);
    for (void*& buffer : buffers) {
      DDL_CUDA(cudaMalloc(&buffer, static_cast<std::size_t>(max)));
      DDL_CUDA(cudaMemset(buffer, 0, static_cast<std::size_t>(max)));
    }
    nlohmann::json rows = nlohmann::json::array();
    if (!json)
      std::printf("# %s, %s\n# %12s %14s %14s %14s %14s %14s %9s\n# %12s %14s %14s %14s %14s %14s %9s\n", properties.name,
                  typeName.c_str(), "size", "copy", "copy", "sum", "sum", "sum in place", "sum/copy", "(B)",
                  "buffer GB/s", "traffic GB/s", "buffer GB/s", "traffic GB/s", "traffic GB/s", "traffic");
    for (double bytes = static_cast<double>(min); bytes <= static_cast<double>(max) * (1 + 1e-9); bytes *= factor) {
      const auto size = static_cast<std::size_t>(bytes) / ddl::sizeOf(*type) * ddl::sizeOf(*type);
      const std::size_t count = size / ddl::sizeOf(*type);
      const double copy = secondsPerRun(stream, runs, [&] {
        DDL_CUDA(cudaMemcpyAsync(buffers[0], buffers[1], size, cudaMemcpyDeviceToDevice, stream));
      });
      const double sum = secondsPerRun(stream, runs, [&] { ddl::launchReduce(buffers[2], buffers[0], buffers[1], count, *type, ddl::ReduceOp::Sum, stream); });
      const double inPlace = secondsPerRun(stream, runs, [&] { ddl::launchReduce(buffers[0], buffers[0], buffers[1], count, *type, ddl::ReduceOp::Sum, stream); });
      const double s = static_cast<double>(size);
      rows.push_back({{"bytes", size},
                      {"copy_s", copy},
                      {"copy_buffer_Bps", s / copy},
                      {"copy_traffic_Bps", 2 * s / copy},
                      {"sum_s", sum},
                      {"sum_buffer_Bps", s / sum},
                      {"sum_traffic_Bps", 3 * s / sum},
                      {"sum_in_place_s", inPlace},
                      {"sum_in_place_buffer_Bps", s / inPlace},
                      {"sum_in_place_traffic_Bps", 3 * s / inPlace},
                      {"sum_over_copy_traffic", (3 * s / sum) / (2 * s / copy)}});
      if (!json)
        std::printf("  %12zu %14.1f %14.1f %14.1f %14.1f %14.1f %8.1f%%\n", size, s / copy / 1e9, 2 * s / copy / 1e9, s / sum / 1e9,
                    3 * s / sum / 1e9, 3 * s / inPlace / 1e9, 100 * (3 * s / sum) / (2 * s / copy));
    }
    const double latency = smallCopyLatency(buffers[0], buffers[1], stream);
    if (json) {
      const nlohmann::json document = {{"gpu", properties.name},
                                       {"type", typeName},
                                       {"runs", runs},
                                       {"small_copy_latency_s", latency},
                                       {"rows", rows}};
      ddl::writeOutput(out, [&](std::ostream& stream) { stream << document.dump(1) << "\n"; });
    } else {
      std::printf("# one 8-byte copy, enqueue to event seen done (median of 201): %.2f us\n", latency * 1e6);
    }
    for (void* buffer : buffers) cudaFree(buffer);
    cudaStreamDestroy(stream);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  } catch (const ddl::InvalidArgument& error) {
    std::cerr << "ddl_gpu_memory_benchmark: " << error.what() << '\n';
    return 2;
  } catch (const ddl::TransportError& error) {
    std::cerr << "ddl_gpu_memory_benchmark: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
