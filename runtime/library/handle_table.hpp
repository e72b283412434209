#pragma once
// The C API's handles (ddl_comm, ddl_request) as numbers that are never reused, not pointers: a handle
// used after it was destroyed, or one never made, is looked up and not found, so the call returns
// DDL_INVALID_ARGUMENT instead of reading freed memory, or another communicator that happens to sit at the
// same address. A lookup costs a lock and a hash probe, well under a microsecond, against the tens of
// microseconds of the smallest collective.

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace ddl {

template <class Object>
class HandleTable {
 public:
  // A new handle, never 0 (a null handle) and never one given before.
  std::uintptr_t add(std::unique_ptr<Object> object) {
    std::lock_guard lock(mutex_);
    const std::uintptr_t handle = next_++;
    objects_.emplace(handle, std::move(object));
    return handle;
  }
  // The object, or null where the handle names none (any longer).
  Object* find(std::uintptr_t handle) const {
    std::lock_guard lock(mutex_);
    const auto found = objects_.find(handle);
    return found == objects_.end() ? nullptr : found->second.get();
  }
  // Takes the object out of the table (null where the handle names none), for its caller to free.
  std::unique_ptr<Object> remove(std::uintptr_t handle) {
    std::lock_guard lock(mutex_);
    const auto found = objects_.find(handle);
    if (found == objects_.end()) return nullptr;
    std::unique_ptr<Object> object = std::move(found->second);
    objects_.erase(found);
    return object;
  }

 private:
  mutable std::mutex mutex_;
  std::uintptr_t next_ = 1;
  std::unordered_map<std::uintptr_t, std::unique_ptr<Object>> objects_;
};

}  // namespace ddl
