#include "mad/base/text.h"

#include <catch2/catch.hpp>

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

}  // namespace
}  // namespace ibsm
