// A scratch folder under /tmp for one test, removed with everything in it
// when the test is done.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace ibsm::test {

struct TempDir {
  std::string path;
  TempDir() {
    char dir[] = "/tmp/ibsm-test.XXXXXX";
    REQUIRE(::mkdtemp(dir));
    path = dir;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace ibsm::test
