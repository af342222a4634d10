#include <set>

#include <catch2/catch.hpp>

#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

namespace {

Fabric tree() { return value_of(kary_ntree({4, 3, {}})); }  // 64 CA cables, 128 switch cables

std::set<std::pair<PortRef, PortRef>> as_set(const std::vector<Link>& links) {
  std::set<std::pair<PortRef, PortRef>> out;
  for (const Link& l : links) out.insert({l.a, l.b});
  return out;
}

}  // namespace

TEST_CASE("fail_links removes k distinct switch-to-switch cables", "[topogen][fail_links]") {
  Fabric f = tree();
  const auto before = as_set(f.links());
  const std::vector<Link> failed = value_of(fail_links(f, {10, 7, false}));
  REQUIRE(failed.size() == 10);
  CHECK(as_set(failed).size() == 10);  // never the same cable twice
  CHECK(f.links().size() == before.size() - 10);
  const auto after = as_set(f.links());
  for (const Link& l : failed) {
    CHECK(before.count({l.a, l.b}) == 1);
    CHECK(after.count({l.a, l.b}) == 0);
    CHECK(f.node(l.a.node).is_switch());
    CHECK(f.node(l.b.node).is_switch());
    const Port& a = f.node(l.a.node).port(l.a.port);
    CHECK_FALSE(a.connected());
    CHECK(a.state == PortState::down);
    CHECK_FALSE(f.node(l.b.node).port(l.b.port).connected());
  }
}

TEST_CASE("fail_links is deterministic in its seed", "[topogen][fail_links][determinism]") {
  Fabric a = tree(), b = tree(), c = tree();
  const auto fa = value_of(fail_links(a, {12, 42, false}));
  const auto fb = value_of(fail_links(b, {12, 42, false}));
  const auto fc = value_of(fail_links(c, {12, 43, false}));
  CHECK(as_set(fa) == as_set(fb));
  CHECK(fingerprint(a) == fingerprint(b));
  CHECK(as_set(fa) != as_set(fc));
}

TEST_CASE("fail_links can take every cable, and no more", "[topogen][fail_links]") {
  Fabric f = tree();
  SECTION("all switch cables") {
    CHECK(value_of(fail_links(f, {128, 1, false})).size() == 128);
    CHECK(f.links().size() == 64);  // only the host cables are left
  }
  SECTION("one too many leaves the fabric untouched") {
    const std::string before = fingerprint(f);
    CHECK_THAT(error_of(fail_links(f, {129, 1, false})), Catch::Contains("only 128 switch-to-switch links"));
    CHECK(fingerprint(f) == before);
  }
  SECTION("with CA cables") {
    const auto failed = value_of(fail_links(f, {192, 1, true}));
    CHECK(failed.size() == 192);
    CHECK(f.links().empty());
    CHECK_THAT(error_of(fail_links(f, {1, 1, true})), Catch::Contains("only 0 links"));
  }
  SECTION("zero is a no-op") {
    CHECK(value_of(fail_links(f, {0, 1, false})).empty());
    CHECK(f.links().size() == 192);
  }
}
