#pragma once
// A line on standard error as parts of a long job end (a sweep's points, tune's configurations), once the
// job has run a second and then at most each second, and for the last: which part, how far along, how long
// so far, and about how long is left at the pace so far. Quick jobs print nothing.

#include <chrono>
#include <cstddef>
#include <string>

namespace ddl {

class ProgressLine {
 public:
  ProgressLine(std::string program, std::size_t total)
      : program_(std::move(program)), total_(total), start_(std::chrono::steady_clock::now()) {}

  // `done` parts of the total have ended, the last of them `what`.
  void ended(std::size_t done, const std::string& what);

  // "12.3 s", "4 min 10 s", "1 h 02 min": a duration as the line gives it.
  static std::string duration(double seconds);

 private:
  std::string program_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
  double printedAt_ = 0;  // seconds from the start
};

}  // namespace ddl
