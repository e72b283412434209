#pragma once
// Runs ddlsim as a user would, capturing exit status, standard output and standard error, in a temporary
// folder of its own per test.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace ddl::testing {

namespace fs = std::filesystem;

struct Result {
  int exitCode;
  std::string out;
  std::string err;
};

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DdlsimRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ddlsim_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `arguments` follow "ddlsim"; data files resolve from this source tree.
  Result ddlsim(const std::string& arguments) {
    const std::string command = "DDLSCALE_DATA_DIR=" + std::string(DDLSCALE_SOURCE_DIR) + " " + std::string(DDLSIM_PATH) +
                                " " + arguments + " >" + (dir_ / "out").string() + " 2>" + (dir_ / "err").string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
  }

  fs::path dir_;
};

}  // namespace ddl::testing
