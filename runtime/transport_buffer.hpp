#pragma once
// A buffer in a transport's memory, with host access for filling and checking it: the buffer itself
// where the transport's memory is host memory, otherwise a host copy moved by upload and download.

#include <cstddef>
#include <vector>

#include "runtime/transport.hpp"

namespace ddl {

class TransportBuffer {
 public:
  TransportBuffer(Transport& transport, std::size_t bytes)
      : transport_(transport), data_(transport.allocate(bytes > 0 ? bytes : 1)) {
    if (!transport.memoryIsHost()) hostCopy_.resize(bytes);
  }
  ~TransportBuffer() { transport_.deallocate(data_); }
  TransportBuffer(const TransportBuffer&) = delete;
  TransportBuffer& operator=(const TransportBuffer&) = delete;

  void* data() { return data_; }
  void* host() { return hostCopy_.empty() ? data_ : hostCopy_.data(); }
  // After writing the first `bytes` of host(): make data() hold them.
  void toTransport(std::size_t bytes) {
    if (!hostCopy_.empty()) transport_.upload(data_, hostCopy_.data(), bytes);
  }
  // Before reading the first `bytes` of host(): make it hold what data() holds.
  void fromTransport(std::size_t bytes) {
    if (!hostCopy_.empty()) transport_.download(hostCopy_.data(), data_, bytes);
  }

 private:
  Transport& transport_;
  void* data_;
  std::vector<char> hostCopy_;
};

}  // namespace ddl
