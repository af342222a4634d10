// Atomic file writes at the edge: a streamed file comes out whole, however
// its parts fall against the write-behind steps, and replaces the old one
// with no temporary file left.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/tools/os/temp_dir.h"
#include "tools/os/files.h"

namespace ibsm::test {
namespace {

TEST_CASE("a streamed file past several write-behind steps is written whole", "[tools][files]") {
  const TempDir scratch;
  const std::string path = scratch.path + "/big";
  REQUIRE(write_file_atomically(path, "old").ok());
  // 20 MB in parts of 3 MB + 1 byte, each part its own pattern: every
  // 8 MB step falls inside a part.
  std::string expected;
  REQUIRE(write_file_atomically(path, [&](const PutText& put) {
            for (int part = 0; part < 7; ++part) {
              std::string text((3u << 20) + 1, static_cast<char>('a' + part));
              text[part] = '\n';
              expected += text;
              put(text);
            }
          }).ok());
  auto text = read_text_file(path);
  REQUIRE(text.ok());
  CHECK(text->size() == expected.size());
  CHECK(*text == expected);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}

}  // namespace
}  // namespace ibsm::test
