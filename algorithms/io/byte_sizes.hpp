#pragma once
// Byte sizes as people type them, in the manner of nccl-tests: 512, 64K, 256M, 1G (powers of 1024).

#include <cstdint>
#include <string>

namespace ddl {

// Throws InvalidArgument(field, ...) on anything else or a negative size.
std::int64_t parseByteSize(const std::string& text, const std::string& field);

}  // namespace ddl
