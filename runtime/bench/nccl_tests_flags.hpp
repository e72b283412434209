#pragma once
// nccl-tests' command-line flags in `ddlrun bench`, so that an all_reduce_perf command line runs here or
// says why not. The flags that mean something here are ddlrun's own options, also under nccl-tests' names
// (bench_command.cpp: -b, -e, -i, -f, -n, -w, -N, -c, -o, -d, -z, -a, -u, -g, -T). These are the rest:
// accepted at nccl-tests' default, which is what ddlrun does anyway, and refused otherwise with what the
// flag does in nccl-tests and why ddlrun has no such thing.

#include <map>
#include <string>

#include <CLI/CLI.hpp>

namespace ddl {

class NcclTestsFlags {
 public:
  void addTo(CLI::App* command);
  // InvalidArgument naming the first flag given a value other than nccl-tests' default.
  void check() const;

 private:
  std::map<std::string, std::string> given_;  // by the flag's first name: the value given
};

}  // namespace ddl
