#include "mad/base/status.h"

#include <catch2/catch.hpp>

using namespace ibsm;

namespace {
Result<int> half(int v) {
  if (v % 2) return invalid_argument_error("odd value " + std::to_string(v));
  return v / 2;
}
Status chain(int v) {
  IBSM_RETURN_IF_ERROR(half(v).status());
  return {};
}
}  // namespace

TEST_CASE("results carry a value or an error", "[base][status]") {
  auto r = half(8);
  REQUIRE(r.ok());
  CHECK(*r == 4);
  auto e = half(3);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().code() == StatusCode::invalid_argument);
  CHECK(e.status().to_string() == "invalid_argument: odd value 3");
  CHECK(chain(4).ok());
  CHECK(chain(5).code() == StatusCode::invalid_argument);
}
