// The light sweep over SimFabric: after a heavy sweep it finds nothing, with
// two Gets per switch and one per CA port; a pulled cable, a switch gone
// silent, a LID changed behind the SM's back or a changed CA port is found;
// after the next heavy sweep the fabric is quiet again.
#include "sm/sweep/light_sweep.h"

#include <set>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "sm/topogen/generators.h"
#include "tests/sm/sweep/sweep_harness.h"

using namespace ibsm;
using test::must;
using test::SweepHarness;

namespace {
uint64_t sets_received(const SimCounters& c) {
  uint64_t n = 0;
  for (const auto& [key, count] : c.received_by_kind)
    if (((key >> 16) & 0xFF) == wire::method::set) n += count;
  return n;
}
}  // namespace

TEST_CASE("a light sweep of a quiet fabric finds nothing and sends only Gets", "[sweep][light]") {
  Fabric topo = must(topogen::kary_ntree({.k = 2, .n = 3}));
  SweepHarness h(topo);
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  uint64_t sets_before = sets_received(h.sim().counters());
  LightSweepResult l = h.light(r);
  INFO(l.reason);
  CHECK_FALSE(l.changed);
  CHECK(l.mads == 2 * topo.switch_count() + topo.ca_count());
  CHECK(sets_received(h.sim().counters()) == sets_before);
}

TEST_CASE("a light sweep finds a pulled or replugged cable, a heavy sweep settles it", "[sweep][light]") {
  Fabric topo = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2}));
  SweepHarness h(topo);
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  PortRef cable{*topo.find_by_name("spine-0"), 2};

  REQUIRE(h.sim().set_link(cable, false).ok());
  LightSweepResult l = h.light(r);
  CHECK(l.changed);
  CHECK(l.reason.find("changed state") != std::string::npos);
  r = h.heavy();
  REQUIRE(r.subnet_up);
  CHECK_FALSE(h.light(r).changed);

  REQUIRE(h.sim().set_link(cable, true).ok());
  CHECK(h.light(r).changed);
  r = h.heavy();
  REQUIRE(r.subnet_up);
  CHECK_FALSE(h.light(r).changed);
  CHECK(h.sim().port_state(cable) == PortState::active);
}

TEST_CASE("a light sweep finds a switch that stopped answering", "[sweep][light]") {
  Fabric topo = must(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 2}));
  SweepHarness h(topo);
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  h.dispatcher().set_options({.window = 16, .timeout = 1000, .retries = 1});
  h.sim().set_unresponsive(*topo.find_by_name("spine-1"));
  LightSweepResult l = h.light(r);
  CHECK(l.changed);
  CHECK(l.reason.find("does not answer") != std::string::npos);
}

TEST_CASE("back to back: the light sweep watches the CA ports themselves", "[sweep][light][b2b]") {
  Fabric topo = must(topogen::back_to_back({}));
  SweepHarness h(topo);
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  LightSweepResult quiet = h.light(r);
  CHECK_FALSE(quiet.changed);
  CHECK(quiet.mads == 2);
  REQUIRE(h.sim().set_link(PortRef{NodeIndex{1}, 1}, false).ok());
  CHECK(h.light(r).changed);
}

TEST_CASE("a light sweep finds a lid changed behind the SM's back", "[sweep][light]") {
  Fabric topo = must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2}));
  SweepHarness h(topo);
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  uint32_t host = topo.find_by_name("host-3")->value;
  REQUIRE(h.sim().set_port_lid(PortRef{NodeIndex{host}, 1}, Lid{200}).ok());
  LightSweepResult l = h.light(r);
  CHECK(l.changed);
  CHECK(l.reason.find("lid 200") != std::string::npos);
  r = h.heavy();
  REQUIRE(r.subnet_up);
  CHECK_FALSE(h.light(r).changed);
  auto check = h.check_held(r.lids.top.value);
  INFO(check.to_string());
  CHECK(check.all_delivered());
}

TEST_CASE("a light sweep names the switches whose ports changed, for an incremental resweep", "[sweep][light]") {
  Fabric topo = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2}));
  SweepHarness h(topo);
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  const NodeIndex spine = *topo.find_by_name("spine-0");
  const NodeIndex leaf = topo.node(spine).port(2).remote_node;
  // The light sweep names nodes of the snapshot (discovery order).
  auto guids = [&](const std::vector<NodeIndex>& nodes) {
    std::set<Guid> out;
    for (NodeIndex n : nodes) out.insert(r.subnet->fabric.node(n).node_guid);
    return out;
  };

  SECTION("a cable between two switches: both ends") {
    REQUIRE(h.sim().set_link(PortRef{spine, 2}, false).ok());
    LightSweepResult l = h.light(r);
    CHECK(l.changed);
    CHECK_FALSE(l.needs_full);
    // Both ends (and any switch whose path crossed the cable: it is silent now).
    CHECK(guids(l.changed_switches).count(topo.node(spine).node_guid) == 1);
    CHECK(guids(l.changed_switches).count(topo.node(leaf).node_guid) == 1);
  }
  SECTION("a host's cable: its switch, though the host does not answer") {
    const NodeIndex host = *topo.find_by_name("host-4");
    REQUIRE(h.sim().set_link(PortRef{host, 1}, false).ok());
    LightSweepResult l = h.light(r);
    CHECK(l.changed);
    CHECK_FALSE(l.needs_full);
    CHECK(guids(l.changed_switches) == std::set<Guid>{topo.node(topo.node(host).port(1).remote_node).node_guid});
  }
  SECTION("the sm's own cable: only a heavy sweep") {
    REQUIRE(h.sim().set_link(SweepHarness::first_ca_port(topo), false).ok());
    LightSweepResult l = h.light(r);
    CHECK(l.changed);
    CHECK(l.needs_full);
  }
  SECTION("a lid moved: only a heavy sweep") {
    REQUIRE(h.sim().set_port_lid(PortRef{*topo.find_by_name("host-4"), 1}, Lid{99}).ok());
    LightSweepResult l = h.light(r);
    CHECK(l.changed);
    CHECK(l.needs_full);
  }
}
