#pragma once
// A buffer in a transport's memory, with host access for filling and checking it: the buffer itself
// where the transport's memory is host memory, otherwise a host copy moved by upload and download. With an
// offset, data() and host() begin that many bytes into the memory allocated (nccl-tests' -u, unalign).

#include <cstddef>
#include <vector>

#include "runtime/transport.hpp"

namespace ddl {

class TransportBuffer {
 public:
  TransportBuffer(Transport& transport, std::size_t bytes, std::size_t offset = 0)
      : transport_(transport), allocated_(transport.allocate(bytes + offset > 0 ? bytes + offset : 1)), offset_(offset) {
    if (!transport.memoryIsHost()) hostCopy_.resize(bytes + offset);
  }
  ~TransportBuffer() { transport_.deallocate(allocated_); }
  TransportBuffer(const TransportBuffer&) = delete;
  TransportBuffer& operator=(const TransportBuffer&) = delete;

  void* data() { return static_cast<char*>(allocated_) + offset_; }
  void* host() { return hostCopy_.empty() ? data() : hostCopy_.data() + offset_; }
  // After writing the first `bytes` of host(): make data() hold them.
  void toTransport(std::size_t bytes) {
    if (!hostCopy_.empty()) transport_.upload(data(), host(), bytes);
  }
  // Before reading the first `bytes` of host(): make it hold what data() holds.
  void fromTransport(std::size_t bytes) {
    if (!hostCopy_.empty()) transport_.download(host(), data(), bytes);
  }

 private:
  Transport& transport_;
  void* allocated_;
  std::size_t offset_;
  std::vector<char> hostCopy_;
};

}  // namespace ddl
