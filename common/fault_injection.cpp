#include "common/fault_injection.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

namespace ddl {
namespace {

struct Fault {
  std::string point;
  int rank = -1;
  std::string mode = "stop";
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
  if (second != std::string::npos) fault.mode = value.substr(second + 1);
  return fault;
}

}  // namespace

void freezeIfAsked(const char* point, int rank) {
  static const Fault fault = parseFault();
  if (fault.rank != rank || fault.point != point) return;
  constexpr const char* kSleep = "sleep=";
  if (fault.mode.rfind(kSleep, 0) == 0) {
    const double seconds = std::atof(fault.mode.c_str() + std::strlen(kSleep));
    std::fprintf(stderr, "ddlrun: rank %d sleeps %.1f s at '%s' (DDLRUN_FREEZE)\n", rank, seconds, point);
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return;
  }
  const char* what = fault.mode == "spin" ? "computes forever" : fault.mode == "fail" ? "fails" : "stops";
  std::fprintf(stderr, "ddlrun: rank %d %s at '%s' (DDLRUN_FREEZE)\n", rank, what, point);
  std::fflush(stderr);
  if (fault.mode == "fail") throw std::runtime_error(std::string("a failure injected at '") + point + "' (DDLRUN_FREEZE)");
  if (fault.mode == "spin") {
    volatile unsigned long long work = 0;
    while (true) work = work + 1;
  }
  std::raise(SIGSTOP);
}

}  // namespace ddl
