// guid2mkey (OpenSM's cache file of the M_Key each port holds), the keys to
// try on an unknown port, and the key each directed route carries.
#include "sm/fabric/m_keys.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("guid2mkey reads OpenSM's layout and writes it back", "[fabric][mkey]") {
  const std::string text =
      "0x0002c90300000001 0x00000000c0ffee01\n\n"
      "# a comment\n"
      "  0x0002C90300000002\t0x2\r\n\n";
  auto keys = parse_guid2mkey(text, "guid2mkey");
  INFO((keys.ok() ? std::string() : keys.status().message()));
  REQUIRE(keys.ok());
  REQUIRE(keys->size() == 2);
  CHECK(keys->at(Guid{0x0002c90300000001}) == 0xc0ffee01);
  CHECK(keys->at(Guid{0x0002c90300000002}) == 2);
  CHECK(format_guid2mkey(*keys) ==
        "0x0002c90300000001 0x00000000c0ffee01\n\n0x0002c90300000002 0x0000000000000002\n\n");
  auto again = parse_guid2mkey(format_guid2mkey(*keys), "again");
  REQUIRE(again.ok());
  CHECK(*again == *keys);
}

TEST_CASE("a bad guid2mkey line is an error naming file and line", "[fabric][mkey]") {
  auto error_of = [](std::string_view text) {
    auto r = parse_guid2mkey(text, "cache/guid2mkey");
    REQUIRE_FALSE(r.ok());
    return r.status().message();
  };
  CHECK(error_of("0x1 0x2\n\n0x3\n") == "cache/guid2mkey:3: expected '<port guid> <m_key>'");
  CHECK(error_of("0x1 0x2 0x3\n") == "cache/guid2mkey:1: expected '<port guid> <m_key>'");
  CHECK(error_of("guid 0x2\n") == "cache/guid2mkey:1: port guid 'guid' is not a number");
  CHECK(error_of("0x1 key\n") == "cache/guid2mkey:1: m_key 'key' is not a number");
  CHECK(error_of("0 0x2\n") == "cache/guid2mkey:1: port guid is zero");
  CHECK(error_of("0x1 0x2\n0x1 0x3\n") ==
        "cache/guid2mkey:2: port guid 0x0000000000000001 is already listed on line 1");
  CHECK(parse_guid2mkey("", "empty").ok());
}

TEST_CASE("an unknown port is tried with the configured key, then the keys ports hold most", "[fabric][mkey]") {
  CHECK(m_key_candidates(7, {}) == std::vector<uint64_t>{7});
  const Guid2MKey known = {{Guid{1}, 5}, {Guid{2}, 9}, {Guid{3}, 9}, {Guid{4}, 7}, {Guid{5}, 1}, {Guid{6}, 2}};
  CHECK(m_key_candidates(7, known) == std::vector<uint64_t>{7, 9, 1, 2});  // at most 4; ties by value
}

TEST_CASE("each directed route carries its port's key; refused routes none", "[fabric][mkey]") {
  MKeyPaths keys;
  DrPath a, b;
  REQUIRE(DrPath::parse("0,1,2", a));
  REQUIRE(DrPath::parse("0,1", b));
  CHECK(keys.empty());
  CHECK(keys.key(a) == uint64_t{0});
  keys.set(a, 42);
  CHECK(keys.key(a) == uint64_t{42});
  CHECK(keys.key(b) == uint64_t{0});
  CHECK(keys.key(DrPath{}) == uint64_t{0});
  keys.refuse(b);
  CHECK_FALSE(keys.key(b).has_value());
  CHECK(keys.refused(b));
  keys.set(b, 0);  // learned after all: its key is 0
  CHECK(keys.key(b) == uint64_t{0});
  keys.set(a, 0);
  CHECK(keys.empty());
}
