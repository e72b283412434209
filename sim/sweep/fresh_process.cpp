#include "sim/sweep/fresh_process.hpp"

#include <signal.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/invalid_argument.hpp"
#include "sim/engine/simulation_error.hpp"

namespace ddl {
namespace {

// What the child sends: a tag, then the values or the error's field and message.
enum class Outcome : std::uint8_t { Values = 1, Invalid = 2, Simulation = 3 };

bool writeAll(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

bool writeString(int fd, const std::string& text) {
  const std::uint64_t size = text.size();
  return writeAll(fd, &size, sizeof size) && writeAll(fd, text.data(), text.size());
}

// Reads a length-prefixed string at `at`, advancing it; false if the data ends first.
bool readString(const std::string& data, std::size_t& at, std::string& text) {
  std::uint64_t size = 0;
  if (data.size() - at < sizeof size) return false;
  std::memcpy(&size, data.data() + at, sizeof size);
  at += sizeof size;
  if (data.size() - at < size) return false;
  text = data.substr(at, size);
  at += size;
  return true;
}

[[noreturn]] void child(int fd, const std::function<std::vector<double>()>& compute) {
  bool sent = false;
  try {
    const std::vector<double> values = compute();
    const auto tag = Outcome::Values;
    const std::uint64_t count = values.size();
    sent = writeAll(fd, &tag, 1) && writeAll(fd, &count, sizeof count) && writeAll(fd, values.data(), count * sizeof(double));
  } catch (const InvalidArgument& error) {
    const auto tag = Outcome::Invalid;
    sent = writeAll(fd, &tag, 1) && writeString(fd, error.field()) && writeString(fd, error.message());
  } catch (const std::exception& error) {
    const auto tag = Outcome::Simulation;
    sent = writeAll(fd, &tag, 1) && writeString(fd, error.what());
  } catch (...) {
    const auto tag = Outcome::Simulation;
    sent = writeAll(fd, &tag, 1) && writeString(fd, "the simulation failed with an exception that is not a std::exception");
  }
  std::fflush(nullptr);
  // _exit: the parent's atexit handlers and static destructors (SimGrid's among them) are the parent's.
  ::_exit(sent ? 0 : 1);
}

}  // namespace

namespace {

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::size_t task = 0;
  std::string data;
};

Child startChild(const std::function<std::vector<double>()>& compute, std::size_t task) {
  int fds[2];
  if (::pipe(fds) != 0) throw SimulationError(std::string("cannot create a pipe for a simulation: ") + std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw SimulationError(std::string("cannot start a process for a simulation: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], compute);
  }
  ::close(fds[1]);
  return {pid, fds[0], task, {}};
}

int reap(pid_t pid) {
  int status = 0;
  pid_t waited = 0;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited < 0) throw SimulationError(std::string("cannot wait for the simulation's process: ") + std::strerror(errno));
  return status;
}

// What the child sent, as values, or its failure thrown again.
std::vector<double> decode(const std::string& data, int status) {
  if (WIFSIGNALED(status))
    throw SimulationError("the simulation's process ended on signal " + std::to_string(WTERMSIG(status)) + " (" +
                          strsignal(WTERMSIG(status)) + ")");
  std::size_t at = 1;
  if (data.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw SimulationError("the simulation's process ended without a result (exit status " +
                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  switch (static_cast<Outcome>(data[0])) {
    case Outcome::Values: {
      std::uint64_t count = 0;
      if (data.size() >= at + sizeof count) {
        std::memcpy(&count, data.data() + at, sizeof count);
        at += sizeof count;
        if ((data.size() - at) == count * sizeof(double)) {
          std::vector<double> values(count);
          if (count > 0) std::memcpy(values.data(), data.data() + at, count * sizeof(double));
          return values;
        }
      }
      break;
    }
    case Outcome::Invalid: {
      std::string field, message;
      if (readString(data, at, field) && readString(data, at, message)) throw InvalidArgument(field, message);
      break;
    }
    case Outcome::Simulation: {
      std::string message;
      if (readString(data, at, message)) throw SimulationError(message);
      break;
    }
  }
  throw SimulationError("the simulation's process sent a result that cannot be read");
}

// Ends every child still running, as a failure of another leaves their work unwanted.
void stopAll(std::vector<Child>& running) {
  for (Child& child : running) {
    ::kill(child.pid, SIGKILL);
    ::close(child.fd);
    ::waitpid(child.pid, nullptr, 0);
  }
  running.clear();
}

}  // namespace

std::vector<double> inFreshProcess(const std::function<std::vector<double>()>& compute) {
  std::vector<std::vector<double>> results = inFreshProcesses({compute}, 1);
  return std::move(results.front());
}

std::vector<std::vector<double>> inFreshProcesses(
    const std::vector<std::function<std::vector<double>()>>& tasks, int jobs,
    const std::function<void(std::size_t, const std::vector<double>&)>& done) {
  std::vector<std::vector<double>> results(tasks.size());
  std::vector<Child> running;
  std::size_t next = 0;
  try {
    while (next < tasks.size() || !running.empty()) {
      while (next < tasks.size() && static_cast<int>(running.size()) < std::max(jobs, 1)) {
        running.push_back(startChild(tasks[next], next));
        ++next;
      }
      std::vector<pollfd> polled;
      for (const Child& child : running) polled.push_back({child.fd, POLLIN, 0});
      if (::poll(polled.data(), polled.size(), -1) < 0) {
        if (errno == EINTR) continue;
        throw SimulationError(std::string("cannot wait for the simulations' processes: ") + std::strerror(errno));
      }
      for (std::size_t i = polled.size(); i-- > 0;) {
        if (polled[i].revents == 0) continue;
        Child& child = running[i];
        char buffer[1 << 16];
        const ssize_t got = ::read(child.fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got > 0) {
          child.data.append(buffer, static_cast<std::size_t>(got));
          continue;
        }
        // End of file (or an error reading): the child has said all it will.
        ::close(child.fd);
        const Child finished = std::move(child);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        results[finished.task] = decode(finished.data, reap(finished.pid));
        if (done) done(finished.task, results[finished.task]);
      }
    }
  } catch (...) {
    stopAll(running);
    throw;
  }
  return results;
}

}  // namespace ddl
