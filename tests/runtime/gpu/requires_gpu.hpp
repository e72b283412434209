#pragma once
// GPU tests run where a CUDA GPU is visible and skip, saying why, where none is (CI has none).

#include <gtest/gtest.h>

#include "runtime/cuda/cuda_devices.hpp"

namespace ddl::testing {

class RequiresGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cudaDevices(&why) == 0) GTEST_SKIP() << "no CUDA GPU here (" << why << "): GPU test skipped";
  }
};

}  // namespace ddl::testing
