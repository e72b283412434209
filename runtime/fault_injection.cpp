#include "runtime/fault_injection.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ddl {
namespace {

struct Fault {
  std::string point;
  int rank = -1;
  bool spin = false;
};

Fault parseFault() {
  const char* text = std::getenv("DDLRUN_FREEZE");
  Fault fault;
  if (!text || !*text) return fault;
  const std::string value = text;
  const auto first = value.find(':');
  const auto second = value.find(':', first == std::string::npos ? first : first + 1);
  fault.point = value.substr(0, first);
  if (first != std::string::npos) fault.rank = std::atoi(value.substr(first + 1, second - first - 1).c_str());
  if (second != std::string::npos) fault.spin = value.substr(second + 1) == "spin";
  return fault;
}

}  // namespace

void freezeIfAsked(const char* point, int rank) {
  static const Fault fault = parseFault();
  if (fault.rank != rank || fault.point != point) return;
  std::fprintf(stderr, "ddlrun: rank %d %s at '%s' (DDLRUN_FREEZE)\n", rank, fault.spin ? "computes forever" : "stops",
               point);
  std::fflush(stderr);
  if (!fault.spin) {
    std::raise(SIGSTOP);
    return;
  }
  volatile unsigned long long work = 0;
  while (true) work = work + 1;
}

}  // namespace ddl
