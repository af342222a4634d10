#include "routing/guid_list.h"

#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace ibsm::routing {
namespace {

Result<std::vector<Guid>> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_guid_list(in, "roots.txt");
}

TEST_CASE("guid lists parse as OpenSM writes them", "[routing][guid_list]") {
  const auto r = parse(
      "# spine switches\n"
      "0x0002c90300000010\n"
      "\n"
      "   0X0002C903000000AB   \n"
      "0x1  # a short one\n"
      "\t0x0002c90300000010\n"  // a repeat: dropped
      "0xffffffffffffffff\r\n");
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  CHECK(*r == std::vector<Guid>{Guid{0x0002c90300000010}, Guid{0x0002c903000000ab}, Guid{1}, Guid{~uint64_t{0}}});
  CHECK(parse("").value().empty());
  CHECK(parse("# nothing\n\n   \n").value().empty());
  CHECK(parse("0x5").value() == std::vector<Guid>{Guid{5}});  // no newline at the end
}

TEST_CASE("guid list errors name the source and the line", "[routing][guid_list]") {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"0x1\n0x2 0x3\n", "roots.txt:2: '0x2 0x3' holds more than one guid"},
      {"0x1\n\n12345\n", "roots.txt:3: '12345' is not a guid"},
      {"0xg1\n", "roots.txt:1: '0xg1' is not a guid"},
      {"0x\n", "roots.txt:1: '0x' is not a guid"},
      {"# c\n0x00000000000000001\n", "roots.txt:2: '0x00000000000000001' is longer than a guid"},
      {"0x0\n", "roots.txt:1: '0x0' is zero"},
      {"switch-1\n", "roots.txt:1: 'switch-1' is not a guid"},
  };
  for (const auto& c : cases) {
    const auto r = parse(c.text);
    INFO(c.text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CHECK_THAT(r.status().message(), Catch::StartsWith(c.says));
  }
}

}  // namespace
}  // namespace ibsm::routing
