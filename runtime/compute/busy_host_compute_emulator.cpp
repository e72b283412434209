#include "runtime/compute/busy_host_compute_emulator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ddl {
namespace {

// Two arrays of 1 MiB each: larger than a core's L2, so compute streams through the shared cache and
// memory as a backward pass streams through a GPU's, and small enough to allocate per rank.
constexpr std::size_t kArrayFloats = std::size_t{1} << 18;
// A unit of work: a multiply-add over this many floats (about a microsecond).
constexpr std::size_t kUnitFloats = 4096;
constexpr double kCalibrationSeconds = 0.02;
constexpr int kCalibrationRuns = 5;

}  // namespace

BusyHostComputeEmulator::BusyHostComputeEmulator()
    : accumulators_(kArrayFloats, 1.0F), addends_(kArrayFloats, 0.25F), worker_([this] { work(); }) {}

BusyHostComputeEmulator::~BusyHostComputeEmulator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  phaseStarted_.notify_all();
  worker_.join();
}

void BusyHostComputeEmulator::spend(std::int64_t units) {
  float* accumulators = accumulators_.data();
  const float* addends = addends_.data();
  for (std::int64_t unit = 0; unit < units; ++unit) {
    // x = x/2 + y converges to 2y: the values stay finite however long it runs.
    for (std::size_t i = cursor_; i < cursor_ + kUnitFloats; ++i) accumulators[i] = accumulators[i] * 0.5F + addends[i];
    cursor_ = (cursor_ + kUnitFloats) % kArrayFloats;
  }
  // Keeps the work observable, so that the compiler cannot drop it.
  asm volatile("" : : "r"(accumulators) : "memory");
}

void BusyHostComputeEmulator::calibrate() {
  {
    // The arrays are the worker's while it computes: calibrate once the last start has finished.
    std::unique_lock lock(mutex_);
    phaseEnded_.wait(lock, [&] { return nextPhase_ == phaseUnits_.size(); });
  }
  std::int64_t units = 64;
  auto seconds = [&](std::int64_t n) {
    const Clock::time_point from = Clock::now();
    spend(n);
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  while (seconds(units) < kCalibrationSeconds) units *= 2;
  std::vector<double> rates;
  for (int run = 0; run < kCalibrationRuns; ++run) rates.push_back(static_cast<double>(units) / seconds(units));
  std::nth_element(rates.begin(), rates.begin() + kCalibrationRuns / 2, rates.end());
  unitsPerSecond_ = rates[kCalibrationRuns / 2];
}

void BusyHostComputeEmulator::start(const std::vector<double>& phaseSeconds) {
  std::unique_lock lock(mutex_);
  phaseEnded_.wait(lock, [&] { return nextPhase_ == phaseUnits_.size(); });
  if (unitsPerSecond_ == 0) {
    lock.unlock();  // the worker is idle: calibrate's arrays are free
    calibrate();
    lock.lock();
  }
  phaseUnits_.clear();
  for (double seconds : phaseSeconds) phaseUnits_.push_back(std::llround(std::max(0.0, seconds) * unitsPerSecond_));
  phaseEnds_.assign(phaseUnits_.size(), Clock::time_point{});
  nextPhase_ = 0;
  started_ = Clock::now();
  lock.unlock();
  phaseStarted_.notify_all();
}

void BusyHostComputeEmulator::waitForPhase(std::size_t phase) {
  std::unique_lock lock(mutex_);
  if (phase >= phaseUnits_.size()) throw std::out_of_range("compute phase " + std::to_string(phase) + " was not started");
  phaseEnded_.wait(lock, [&] { return nextPhase_ > phase; });
}

double BusyHostComputeEmulator::phaseEnd(std::size_t phase) const {
  std::lock_guard lock(mutex_);
  if (phase >= nextPhase_) throw std::out_of_range("compute phase " + std::to_string(phase) + " has not finished");
  return std::chrono::duration<double>(phaseEnds_[phase] - started_).count();
}

void BusyHostComputeEmulator::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    phaseStarted_.wait(lock, [&] { return stopping_ || nextPhase_ < phaseUnits_.size(); });
    if (stopping_) return;
    const std::int64_t units = phaseUnits_[nextPhase_];
    lock.unlock();
    spend(units);
    const Clock::time_point end = Clock::now();
    lock.lock();
    phaseEnds_[nextPhase_++] = end;
    phaseEnded_.notify_all();
  }
}

}  // namespace ddl
