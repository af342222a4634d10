#include "sm/status_page/load_colour.h"

#include <set>
#include <string>

#include <catch2/catch.hpp>

namespace ibsm::status {
namespace {

TEST_CASE("load_step: no route, then fifths of the maximum", "[status][colour]") {
  CHECK(load_step(0, 10) == 0);
  CHECK(load_step(1, 10) == 1);
  CHECK(load_step(2, 10) == 1);
  CHECK(load_step(3, 10) == 2);
  CHECK(load_step(6, 10) == 3);
  CHECK(load_step(8, 10) == 4);
  CHECK(load_step(9, 10) == 5);
  CHECK(load_step(10, 10) == 5);
  CHECK(load_step(11, 10) == 5);
  CHECK(load_step(1, 0) == 5);
  CHECK(load_step(1, 1) == 5);
  CHECK(load_step(1, 3) == 2);  // a third: above a fifth, up to two fifths
  CHECK(std::string(load_colour(0, 5)) == kLoadColours[0]);
  CHECK(std::string(load_colour(5, 5)) == kLoadColours[5]);
}

TEST_CASE("the picture's colours are all different", "[status][colour]") {
  std::set<std::string> colours(kLoadColours.begin(), kLoadColours.end());
  colours.insert(kErrorColour);
  colours.insert(kSwitchFill);
  colours.insert(kEndpointFill);
  CHECK(colours.size() == kLoadColours.size() + 3);
}

}  // namespace
}  // namespace ibsm::status
