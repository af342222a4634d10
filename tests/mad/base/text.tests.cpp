#include "mad/base/text.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

namespace ibsm {
namespace {

TEST_CASE("trim takes the C library's blanks off both ends only", "[base][text]") {
  CHECK(trim(" \t a b \r\n") == "a b");
  CHECK(trim("") == "");
  CHECK(trim(" \v\f ") == "");
}

TEST_CASE("a quoted value is whole when short, and cut with its length when long", "[base][text]") {
  CHECK(quoted("updnx") == "'updnx'");
  CHECK(quoted("a\n\tb") == "'a b'");
  const std::string huge(20 * 1024 * 1024, 'A');
  const std::string q = quoted(huge);
  CHECK(q == "'" + std::string(60, 'A') + "...' (20971520 bytes)");
  CHECK(quoted("abcdef", 3) == "'abc...' (6 bytes)");
  CHECK(quoted("abc", 3) == "'abc'");
}

// Two digits per byte, the vector loop's 16 at a time and the tail's one
// at a time alike: every byte value, at lengths around the 16-byte steps,
// appended after what the string held.
TEST_CASE("append_hex_bytes writes two lower-case digits per byte", "[base][text]") {
  std::vector<uint8_t> bytes(256 + 17);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 167 + 3);
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{32}, size_t{33}, bytes.size()}) {
    INFO(n);
    std::string want = "x ";
    for (size_t i = 0; i < n; ++i) want += fmt::format("{:02x}", bytes[i]);
    std::string out = "x ";
    append_hex_bytes(out, std::span(bytes).first(n));
    CHECK(out == want);
  }
}

}  // namespace
}  // namespace ibsm
