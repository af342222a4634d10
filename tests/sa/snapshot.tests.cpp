// The SA snapshot: built from a heavy sweep over SimFabric it holds what the
// SMAs hold (LIDs, LMCs, states, SM LID), and its indexes find every port by
// each of its LIDs, its port GUID and its node GUID.
#include "sa/snapshot.h"
#include "sa/partition_access.h"

#include <catch2/catch.hpp>

#include "mad/wire/p_key_table.h"
#include "sm/topogen/generators.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::must;
using test::SweepHarness;

namespace {

// Every LID-owning port of the snapshot against what the simulated SMA holds.
void require_matches_sim(const sa::SaSnapshot& s, const SimFabric& sim) {
  const Fabric& topo = sim.topology();
  size_t endports = 0;
  for (uint32_t i = 0; i < s.fabric.node_count(); ++i) {
    const Node& node = s.fabric.node(NodeIndex{i});
    auto in_sim = topo.find_by_node_guid(node.node_guid);
    REQUIRE(in_sim);
    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      if (!s.has_port_info(NodeIndex{i}, p)) continue;
      INFO(node.name << " port " << int(p));
      const auto& held = sim.state().port(in_sim->value, p);
      const wire::PortInfo& pi = s.port_info[i][p];
      CHECK(pi.port_state == held.state);
      // LocalPortNum is the port the SMP entered by: a switch's entry port.
      CHECK(pi.local_port_num == (node.is_switch() ? s.entry_port[i] : p));
      if (node.is_switch() && p != 0) continue;
      ++endports;
      CHECK(pi.lid.value == held.lid);
      CHECK(pi.lmc == held.lmc);
      CHECK(pi.master_sm_lid.value == held.master_sm_lid);
      CHECK(pi.master_sm_lid == s.sm_lid);
      CHECK(pi.gid_prefix == s.subnet_prefix);
      REQUIRE(!s.p_keys[i][p].empty());
      CHECK(s.p_keys[i][p][0] == wire::default_p_key);
    }
  }
  CHECK(s.endports.size() == endports);
}

void require_indexes(const sa::SaSnapshot& s) {
  REQUIRE(s.nodes_by_guid.size() == s.fabric.node_count());
  for (size_t k = 1; k < s.nodes_by_guid.size(); ++k)
    CHECK(s.fabric.node(s.nodes_by_guid[k - 1]).node_guid.value < s.fabric.node(s.nodes_by_guid[k]).node_guid.value);
  for (const sa::EndPort& e : s.endports) {
    INFO(fmt::format("port {} lid {}", e.guid, e.base_lid));
    REQUIRE(e.base_lid.value != 0);
    for (uint32_t k = 0; k < (1u << e.lmc); ++k) {
      const sa::EndPort* by_lid = s.by_lid(Lid{static_cast<uint16_t>(e.base_lid.value + k)});
      REQUIRE(by_lid != nullptr);
      CHECK(by_lid->ref == e.ref);
    }
    const sa::EndPort* by_guid = s.by_port_guid(e.guid);
    REQUIRE(by_guid != nullptr);
    CHECK(by_guid->ref == e.ref);
    CHECK(s.by_node_guid(s.fabric.node(e.ref.node).node_guid) == e.ref.node);
    CHECK(s.record_lid(e.ref.node, e.ref.port) == e.base_lid);
  }
  CHECK(s.by_lid(Lid{0}) == nullptr);
  CHECK(s.by_lid(Lid{0xBFFF}) == nullptr);
  CHECK(s.by_port_guid(Guid{0x1234}) == nullptr);
}

}  // namespace

TEST_CASE("an sa snapshot of a swept fat tree holds what the smas hold", "[sa][snapshot]") {
  uint8_t lmc = GENERATE(0, 1);
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h, lmc);
  require_matches_sim(s, h.sim());
  require_indexes(s);
  CHECK(s.generation == 3);
  CHECK(s.endports.size() == s.fabric.switch_count() + s.fabric.ca_count());

  // The SM's own SMInfo and port.
  const Node& sm_node = s.fabric.node(s.sm_port.node);
  CHECK(s.sm_info.guid == sm_node.port(s.sm_port.port).guid);
  CHECK(s.sm_info.sm_key == 0x1122334455667788ULL);
  CHECK(s.sm_info.priority == 5);
  CHECK(s.sm_info.sm_state == wire::sm_state::master);
  CHECK(s.by_lid(s.sm_lid)->ref == s.sm_port);

  // SwitchInfo as programmed; NodeInfo:LocalPortNum as the SM read it.
  for (uint32_t i = 0; i < s.fabric.node_count(); ++i) {
    const Node& node = s.fabric.node(NodeIndex{i});
    INFO(node.name);
    CHECK(node.partition_cap != 0);
    if (!node.is_switch()) continue;
    REQUIRE(!s.lft(NodeIndex{i}).empty());
    CHECK(s.switch_info[i].linear_fdb_top == s.lft(NodeIndex{i}).size() - 1);
    CHECK(s.switch_info[i].linear_fdb_top ==
          h.sim().state().switch_of(h.sim().topology().find_by_node_guid(node.node_guid)->value)->linear_fdb_top);
    CHECK(!s.switch_info[i].port_state_change);
    uint8_t entry = s.entry_port[i];
    REQUIRE(entry >= 1);
    REQUIRE(entry <= node.num_ports);
    CHECK(node.port(entry).connected());
  }
}

TEST_CASE("an sa snapshot of ibsim's two-port hca example", "[sa][snapshot]") {
  Fabric topo = test::two_port_hca_fabric();
  SweepHarness h(topo);
  sa::SaSnapshot s = test::swept_snapshot(h);
  require_matches_sim(s, h.sim());
  require_indexes(s);
  CHECK(s.endports.size() == 2 + 4);  // two switches, two HCAs with two ports each
}

TEST_CASE("an sa snapshot from explicit parts", "[sa][snapshot]") {
  sa::SaSnapshot s = test::offline_snapshot(must(topogen::kary_ntree({.k = 2, .n = 2})), 2);
  require_indexes(s);
  CHECK(s.endports.size() == s.fabric.switch_count() + s.fabric.ca_count());
  for (const sa::EndPort& e : s.endports) {
    const wire::PortInfo& pi = s.port_info[e.ref.node.value][e.ref.port];
    CHECK(pi.lid == e.base_lid);
    CHECK(pi.master_sm_lid == s.sm_lid);
  }

  SubnetParts bad;
  bad.fabric = must(topogen::kary_ntree({.k = 2, .n = 2}));
  CHECK(!configured_subnet(std::move(bad), SubnetDefaults{}).ok());  // no sm port
  CHECK(!sa::build_sa_snapshot(SubnetSnapshot{}, sa::SaSnapshotOptions{}).ok());
}

TEST_CASE("SA snapshot: the SLs of the routing the sweep used reach the snapshot", "[sa][snapshot]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 2})));
  // An engine that assigns SLs hands the sweep a path_sl (routing_step.cpp);
  // here the route function stands in for it.
  RouteFunction base = h.config().route;
  h.config().route = [base](const Fabric& f) -> Result<SweepRoutes> {
    auto r = base(f);
    if (r.ok()) r->path_sl = [](Lid s, Lid d) { return static_cast<uint8_t>((s.value + 2 * d.value) % 16); };
    return r;
  };
  const sa::SaSnapshot s = test::swept_snapshot(h);
  REQUIRE(s.path_sl);
  CHECK(s.path_sl(Lid{3}, Lid{5}) == 13);
  // Without one, every path is SL 0: no hook at all.
  SweepHarness plain(must(topogen::kary_ntree({.k = 2, .n = 2})));
  CHECK_FALSE(test::swept_snapshot(plain).path_sl);
}

TEST_CASE("a GID names a port by its interface ID: with the subnet's or the link-local prefix, or with any", "[sa][snapshot]") {
  sa::SaSnapshot s = test::offline_snapshot(must(topogen::kary_ntree({.k = 2, .n = 2})));
  s.subnet_prefix = 0xFEC0000000001234ULL;  // a site prefix, so that link-local differs
  const sa::EndPort& e = s.endports.front();
  using P = sa::GidPrefix;
  const auto gid = [&](uint64_t prefix) { return wire::Gid::from_parts(prefix, e.guid.value); };
  CHECK(sa::port_by_gid(s, gid(s.subnet_prefix)) == &e);
  CHECK(sa::port_by_gid(s, gid(0xFE80000000000000ULL)) == &e);
  CHECK(sa::port_by_gid(s, gid(0xFEBF000000000000ULL)) == &e);  // still fe80::/10
  CHECK(sa::port_by_gid(s, gid(0)) == nullptr);
  CHECK(sa::port_by_gid(s, gid(0x80FE000000000000ULL)) == nullptr);  // byte-swapped link-local
  CHECK(sa::port_by_gid(s, gid(0), P::any) == &e);
  CHECK(sa::port_by_gid(s, gid(0x80FE000000000000ULL), P::any) == &e);
  CHECK(sa::port_by_gid(s, wire::Gid::from_parts(s.subnet_prefix, 0x4242), P::any) == nullptr);  // no such port
}

TEST_CASE("the SA reads the sweep's LFTs in place, and a test's change stays its own", "[sa][snapshot]") {
  // 3,468 switches x 42,772 LIDs are 148 MB of LFTs: shared, not copied.
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  auto built = sa::build_sa_snapshot(r.subnet, test::sa_options());
  REQUIRE(built.ok());
  sa::SaSnapshot& s = *built;
  REQUIRE(s.lfts.size() == r.subnet->lfts.size());
  NodeIndex sw;
  for (uint32_t i = 0; i < s.fabric.node_count() && !sw.valid(); ++i)
    if (s.fabric.node(NodeIndex{i}).is_switch()) sw = NodeIndex{i};
  REQUIRE(sw.valid());
  CHECK(&s.lft(sw) == &r.subnet->lfts[sw.value]);
  for (uint32_t i = 0; i < s.fabric.node_count(); ++i)
    if (s.fabric.node(NodeIndex{i}).is_switch()) CHECK(s.lfts.same_row(i, r.subnet->lfts, i));

  const uint8_t was = r.subnet->lfts[sw.value][1];
  s.lft_for_write(sw)[1] = static_cast<uint8_t>(was + 1);
  CHECK(s.lft(sw)[1] == static_cast<uint8_t>(was + 1));
  CHECK(r.subnet->lfts[sw.value][1] == was);  // the sweep's snapshot is untouched
  CHECK_FALSE(s.lfts.same_row(sw.value, r.subnet->lfts, sw.value));
}
