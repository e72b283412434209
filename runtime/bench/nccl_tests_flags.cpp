#include "runtime/bench/nccl_tests_flags.hpp"

#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

struct FlagWithoutMeaning {
  const char* names;         // CLI11's: "-G,--cudagraph"
  const char* defaultValue;  // nccl-tests' default, accepted
  const char* meaning;       // what it does in nccl-tests, and why ddlrun has no such thing
};

constexpr FlagWithoutMeaning kFlagsWithoutMeaning[] = {
    {"-t,--nthreads", "1", "threads per process, each driving its own GPUs: ddlrun runs one rank per process (mpi, nccl) or "
                           "per thread (--transport threads, cuda-peer or nccl-threads, --ranks N)"},
    {"-m,--agg_iters", "1", "collectives launched as one group per timed iteration: ddlrun waits for each run before the next"},
    {"-p,--parallel_init", "0", "communicators created by the threads at once: ddlrun has one thread per rank"},
    {"-r,--root", "0", "the root of broadcast, reduce, gather and scatter: ddlrun bench's collectives have none"},
    {"-y,--stream_null", "0", "collectives on CUDA's default stream: ddlrun chooses its streams"},
    {"-G,--cudagraph", "0", "collectives captured in a CUDA graph and launched that many times: ddlrun launches no graphs"},
    {"-C,--report_cputime", "0", "the host's time per collective in place of CUDA events': ddlrun's times are the host's"},
    {"-S,--report_timestamps", "0", "a timestamp column: not in ddlrun's table"},
    {"-J,--output_file", "", "nccl-tests' JSON: ddlrun writes its own, --json --out FILE"},
    {"-R,--local_register", "0", "NCCL's buffer registration: ddlrun's NCCL transport registers nothing"},
    {"-x,--cta_policy", "-1", "NCCL's CTA policy: not set by ddlrun"},
    {"-D,--device_implementation", "0", "nccl-tests' own device kernels: ddlrun runs its schedules"},
    {"-V,--device_cta_count", "16", "CTAs of nccl-tests' device kernels: ddlrun runs its schedules"},
    {"-M,--memory", "0", "a report of the GPU memory used: not in ddlrun's table"},
    {"-I,--per_iter_timing", "0", "per-iteration CUDA event times: ddlrun times each size's runs together"},
    {"-K,--per_iter_skip", "0", "iterations -I leaves out: ddlrun has no -I"},
};

// "-G" of "-G,--cudagraph".
std::string firstName(const char* names) {
  const std::string all(names);
  return all.substr(0, all.find(','));
}

}  // namespace

void NcclTestsFlags::addTo(CLI::App* command) {
  for (const FlagWithoutMeaning& flag : kFlagsWithoutMeaning)
    command
        ->add_option_function<std::string>(flag.names, [this, name = firstName(flag.names)](const std::string& value) { given_[name] = value; },
                                           std::string("nccl-tests' ") + flag.meaning + " (only " +
                                               (*flag.defaultValue ? flag.defaultValue : "unset") + ")")
        ->group("nccl-tests' flags without a meaning here");
}

void NcclTestsFlags::check() const {
  for (const FlagWithoutMeaning& flag : kFlagsWithoutMeaning) {
    const auto given = given_.find(firstName(flag.names));
    if (given == given_.end() || given->second == flag.defaultValue) continue;
    throw InvalidArgument(given->first, "'" + given->second + "': in nccl-tests, " + flag.meaning +
                                            (*flag.defaultValue ? std::string(" (only ") + flag.defaultValue + " here)" : ""));
  }
}

}  // namespace ddl
