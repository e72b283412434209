#include "sim/cli/progress_line.hpp"

#include <cmath>
#include <cstdio>

namespace ddl {

std::string ProgressLine::duration(double seconds) {
  char text[48];
  if (seconds < 60) std::snprintf(text, sizeof text, "%.1f s", seconds);
  else if (seconds < 3600) std::snprintf(text, sizeof text, "%d min %02d s", static_cast<int>(seconds / 60), static_cast<int>(std::fmod(seconds, 60)));
  else std::snprintf(text, sizeof text, "%d h %02d min", static_cast<int>(seconds / 3600), static_cast<int>(std::fmod(seconds, 3600) / 60));
  return text;
}

void ProgressLine::ended(std::size_t done, const std::string& what) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed <= 1 || done == 0 || (elapsed - printedAt_ < 1 && done < total_)) return;
  printedAt_ = elapsed;
  std::string left;
  // The pace so far: parts take unequal times (more GPUs, larger sizes), so it is an estimate.
  if (done < total_) left = ", about " + duration(elapsed * static_cast<double>(total_ - done) / static_cast<double>(done)) + " left";
  std::fprintf(stderr, "%s: [%zu/%zu] %s (%s%s)\n", program_.c_str(), done, total_, what.c_str(), duration(elapsed).c_str(),
               left.c_str());
}

}  // namespace ddl
