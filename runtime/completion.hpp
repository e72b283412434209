#pragma once
// Work that finishes after it was started: a copy or a kernel on a GPU stream, seen from the host.

namespace ddl {

class Completion {
 public:
  virtual ~Completion() = default;
  // Whether the work has finished; throws TransportError if it failed.
  virtual bool done() = 0;
};

}  // namespace ddl
