// SL2VL, VL arbitration and VLHighLimit programming over SimFabric: with qos
// FALSE nothing is sent (OpenSM's rule); with qos TRUE every cabled switch
// port pair, every CA port gets the configured tables masked to its
// OperationalVLs, a second sweep sends none, a changed key sends only what
// changed, and an engine's own tables win.
#include "sm/sweep/vl_programming.h"

#include <sstream>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "sm/topogen/generators.h"
#include "tests/sm/sweep/sweep_harness.h"

using namespace ibsm;
using test::SweepHarness;

namespace {

QosTables tables(const QosClassKeys& general, const QosClassKeys& ca = {}, const QosClassKeys& swe = {}) {
  QosTables t;
  t.by_class[static_cast<size_t>(QosPortClass::ca)] = resolve_qos_class(ca, general);
  t.by_class[static_cast<size_t>(QosPortClass::sw0)] = resolve_qos_class({}, general);
  t.by_class[static_cast<size_t>(QosPortClass::swe)] = resolve_qos_class(swe, general);
  t.by_class[static_cast<size_t>(QosPortClass::rtr)] = resolve_qos_class({}, general);
  return t;
}

QosClassKeys keys(std::string sl2vl, std::string low = "", std::string high = "", int16_t high_limit = -1) {
  QosClassKeys k;
  k.sl2vl = std::move(sl2vl);
  k.vlarb_low = std::move(low);
  k.vlarb_high = std::move(high);
  k.high_limit = high_limit;
  return k;
}

std::array<uint8_t, 16> held_sl2vl(SweepHarness& h, uint32_t node, uint8_t in, uint8_t out) {
  auto t = wire::decode_sl_to_vl_table(h.sim().state().sl_to_vl(node, in, out));
  REQUIRE(t.ok());
  return t->vl_of_sl;
}

// What a port's VLArb table (low or high) holds: (VL, weight) of its 8 entries.
std::vector<std::pair<int, int>> held_vlarb(SweepHarness& h, uint32_t node, uint8_t port, bool high) {
  std::vector<std::pair<int, int>> out;
  auto bytes = h.sim().state().vl_arbitration(node, port, high);
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) out.emplace_back(bytes[i] & 0x0F, bytes[i + 1]);
  return out;
}

constexpr std::array<uint8_t, 16> kReversed{7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 15};

}  // namespace

TEST_CASE("with qos FALSE no SL2VL or VLArb MAD is sent", "[sweep][vl]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2", "h3"}));
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  CHECK(r.sl2vl_sets == 0);
  CHECK(r.vlarb_sets == 0);
  CHECK(r.vl_tables_read == 0);
}

TEST_CASE("qos TRUE: every switch port pair and CA port gets the tables; a second sweep sets none", "[sweep][vl]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2", "h3"}));
  h.config().vl = VlSettings{true, tables(keys("7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15", "0:8,1:16,2:32", "3:1", 5))};
  SweepReport r = h.heavy();
  INFO(fmt::format("problems: {}", fmt::join(r.problems, "; ")));
  REQUIRE(r.subnet_up);
  const Fabric& f = h.sim().topology();
  const uint32_t sw = f.find_by_name("S1")->value;
  // 3 cabled ports: out ports 1-3, in ports 0 and the 2 other cabled ones: 9
  // switch tables; 3 CA tables.
  CHECK(r.sl2vl_sets == 9 + 3);
  for (uint8_t out = 1; out <= 3; ++out) {
    CHECK(held_sl2vl(h, sw, 0, out) == kReversed);
    for (uint8_t in = 1; in <= 3; ++in)
      if (in != out) CHECK(held_sl2vl(h, sw, in, out) == kReversed);
  }
  for (const char* host : {"h1", "h2", "h3"}) CHECK(held_sl2vl(h, f.find_by_name(host)->value, 1, 0) == kReversed);
  // VLArb: low and high blocks of each cabled port (8 entries each: the cap).
  CHECK(r.vlarb_sets == 2 * (3 + 3));
  const std::vector<std::pair<int, int>> low{{0, 8}, {1, 16}, {2, 32}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
  const std::vector<std::pair<int, int>> high{{3, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
  CHECK(held_vlarb(h, sw, 2, false) == low);
  CHECK(held_vlarb(h, sw, 2, true) == high);
  CHECK(held_vlarb(h, f.find_by_name("h2")->value, 1, false) == low);
  CHECK(h.sim().state().port(f.find_by_name("h2")->value, 1).vl_high_limit == 5);
  CHECK(h.sim().state().port(sw, 2).vl_high_limit == 5);

  SweepReport again = h.heavy();
  CHECK(again.sl2vl_sets == 0);
  CHECK(again.vlarb_sets == 0);
  CHECK(again.vl_tables_read == 0);
  CHECK(again.port_info_sets == 0);
}

TEST_CASE("a changed qos_ca key sets only the CA tables", "[sweep][vl]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2"}));
  h.config().vl = VlSettings{true, tables(keys("7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"))};
  REQUIRE(h.heavy().subnet_up);
  h.config().vl = VlSettings{true, tables(keys("7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"), keys("1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"))};
  SweepReport r = h.heavy();
  CHECK(r.sl2vl_sets == 2);
  CHECK(r.vlarb_sets == 0);
  CHECK(r.vl_tables_read == 0);
  const Fabric& f = h.sim().topology();
  std::array<uint8_t, 16> ones;
  ones.fill(1);
  CHECK(held_sl2vl(h, f.find_by_name("h1")->value, 1, 0) == ones);
  CHECK(held_sl2vl(h, f.find_by_name("S1")->value, 1, 2) == kReversed);
}

TEST_CASE("OperationalVLs stays within VLCap and max_op_vls, and SL2VL VLs are masked to it", "[sweep][vl]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2"}));
  const Fabric& f = h.sim().topology();
  const uint32_t h1 = f.find_by_name("h1")->value;
  SECTION("max_op_vls 5 (VL0-14) on ports whose VLCap is VL0-7") {
    h.config().vl = VlSettings{true, tables(keys("14,13,12,11,10,9,8,7,6,5,4,3,2,1,0,15"))};
    REQUIRE(h.heavy().subnet_up);
    CHECK(h.sim().state().port(h1, 1).operational_vls == 4);
    // VL & 7 (OpenSM's mask for VL0-7); VL15 stays.
    CHECK(held_sl2vl(h, h1, 1, 0) == std::array<uint8_t, 16>{6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0, 15});
  }
  SECTION("max_op_vls 2 (VL0-1)") {
    h.config().subnet.max_op_vls = 2;
    h.config().vl = VlSettings{true, tables(keys("0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"))};
    REQUIRE(h.heavy().subnet_up);
    CHECK(h.sim().state().port(h1, 1).operational_vls == 2);
    CHECK(held_sl2vl(h, h1, 1, 0) == std::array<uint8_t, 16>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
  }
}

TEST_CASE("an engine's SL2VL tables are programmed, over the qos keys and without qos", "[sweep][vl]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2"}));
  const Fabric& f = h.sim().topology();
  const NodeIndex sw = *f.find_by_name("S1");
  const NodeIndex h1 = *f.find_by_name("h1");
  RouteFunction minhop = SweepHarness::route_function("minhop");
  // The engine names nodes by the routed snapshot's indices (the discovered fabric's).
  auto in_snapshot = [&f](const Fabric& snapshot, NodeIndex topo) {
    return *snapshot.find_by_node_guid(f.node(topo).node_guid);
  };
  h.config().route = [&](const Fabric& snapshot) -> Result<SweepRoutes> {
    auto r = minhop(snapshot);
    if (!r.ok()) return r;
    routing::Sl2VlTable a{in_snapshot(snapshot, sw), 1, 2, {}};
    a.vl_of_sl.fill(3);
    routing::Sl2VlTable b{in_snapshot(snapshot, h1), 1, 1, {}};
    b.vl_of_sl.fill(2);
    r->sl2vl = std::vector<routing::Sl2VlTable>{a, b};
    return r;
  };
  std::array<uint8_t, 16> threes, twos;
  threes.fill(3);
  twos.fill(2);
  SECTION("qos FALSE: only the engine's tables") {
    SweepReport r = h.heavy();
    REQUIRE(r.subnet_up);
    CHECK(r.sl2vl_sets == 2);
    CHECK(r.vlarb_sets == 0);
    CHECK(held_sl2vl(h, sw.value, 1, 2) == threes);
    CHECK(held_sl2vl(h, h1.value, 1, 0) == twos);
  }
  SECTION("qos TRUE: the engine's win where it has them") {
    h.config().vl = VlSettings{true, tables(keys("7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"))};
    SweepReport r = h.heavy();
    REQUIRE(r.subnet_up);
    CHECK(held_sl2vl(h, sw.value, 1, 2) == threes);
    CHECK(held_sl2vl(h, sw.value, 2, 1) == kReversed);
    CHECK(held_sl2vl(h, h1.value, 1, 0) == twos);
  }
  SECTION("an SL on a VL the port does not run is reported") {
    h.config().route = [&](const Fabric& snapshot) -> Result<SweepRoutes> {
      auto r = minhop(snapshot);
      routing::Sl2VlTable bad{in_snapshot(snapshot, h1), 1, 1, {}};
      bad.vl_of_sl.fill(9);  // the ports run VL0-7
      if (r.ok()) r->sl2vl = std::vector<routing::Sl2VlTable>{bad};
      return r;
    };
    SweepReport r = h.heavy();
    CHECK(count_problems(r.problems, SweepProblemKind::vl_cap) == 1);
    CHECK(r.subnet_up);
  }
}

TEST_CASE("a table the SM forgot (a lost answer) is read again, and set only if it differs", "[sweep][vl][faults]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2"}));
  h.config().vl = VlSettings{true, tables(keys("7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"))};
  REQUIRE(h.heavy().subnet_up);
  const Fabric& f = h.sim().topology();
  const NodeIndex h1 = *f.find_by_name("h1");
  h.state().vl_tables[f.node(h1).node_guid].sl2vl.erase(static_cast<uint16_t>((1 << 8) | 1));
  SweepReport r = h.heavy();
  CHECK(r.vl_tables_read == 1);
  CHECK(r.sl2vl_sets == 0);
  CHECK(held_sl2vl(h, h1.value, 1, 0) == kReversed);
}

TEST_CASE("the policy's qos-setup scopes apply over the keys to the ports their groups name", "[sweep][vl][policy]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2"}));
  const Fabric& f = h.sim().topology();
  const NodeIndex sw = *f.find_by_name("S1");
  const NodeIndex h1 = *f.find_by_name("h1"), h2 = *f.find_by_name("h2");
  std::istringstream text(fmt::format(R"(port-groups
  port-group
    name: One
    port-guid: {}
  end-port-group
end-port-groups
qos-setup
  vlarb-tables
    vlarb-scope
      group: One
      vlarb-low: 5:50
      vl-high-limit: 9
    end-vlarb-scope
  end-vlarb-tables
  sl2vl-tables
    sl2vl-scope
      group: One
      across-to: One
      sl2vl-table: 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3
    end-sl2vl-scope
  end-sl2vl-tables
end-qos-setup
)",
                                      f.node(h1).port(1).guid));
  auto policy = parse_qos_policy(text, "qos-policy.conf");
  REQUIRE(policy.ok());
  h.config().vl = VlSettings{true, tables(keys("7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,15"))};
  h.config().qos_policy = std::make_shared<const QosPolicy>(std::move(*policy));
  REQUIRE(h.heavy().subnet_up);
  std::array<uint8_t, 16> threes;
  threes.fill(3);
  CHECK(held_sl2vl(h, h1.value, 1, 0) == threes);
  CHECK(held_sl2vl(h, h2.value, 1, 0) == kReversed);
  const uint8_t to_h1 = f.node(h1).port(1).remote_port, to_h2 = f.node(h2).port(1).remote_port;
  CHECK(held_sl2vl(h, sw.value, to_h2, to_h1) == threes);  // across to h1
  CHECK(held_sl2vl(h, sw.value, to_h1, to_h2) == kReversed);
  CHECK(held_vlarb(h, h1.value, 1, false)[0] == std::pair<int, int>{5, 50});
  CHECK(held_vlarb(h, h2.value, 1, false)[0] == std::pair<int, int>{0, 0});
  CHECK(h.sim().state().port(h1.value, 1).vl_high_limit == 9);
  CHECK(h.sim().state().port(h2.value, 1).vl_high_limit == 0);
}

TEST_CASE("dfsssp's layers are programmed: every cabled port pair maps sl s to vl s % layers", "[sweep][vl]") {
  // A ring of 6 (one host each): its shortest paths have a credit loop, so
  // dfsssp needs a second layer, and gives the tables to keep it on its VL.
  Fabric topo = topogen::mesh({.dims = {6}, .torus = true}).value();
  SweepHarness h(topo);
  h.config().route = SweepHarness::route_function("dfsssp");
  SweepReport r = h.heavy();
  REQUIRE(r.subnet_up);
  CHECK(r.sl2vl_sets > 0);
  const Fabric& f = h.sim().topology();
  std::array<uint8_t, 16> two_layers;
  for (uint8_t sl = 0; sl < 16; ++sl) two_layers[sl] = sl % 2;
  size_t checked = 0;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    for (uint8_t o = 1; o <= n.num_ports; ++o) {
      if (!n.port(o).connected()) continue;
      if (!n.is_switch()) {
        CHECK(held_sl2vl(h, i, o, 0) == two_layers);
        ++checked;
        continue;
      }
      for (uint8_t in = 0; in <= n.num_ports; ++in) {
        if (in == o || (in != 0 && !n.port(in).connected())) continue;
        INFO("switch " << n.name << " in " << int(in) << " out " << int(o));
        CHECK(held_sl2vl(h, i, in, o) == two_layers);
        ++checked;
      }
    }
  }
  CHECK(checked == r.sl2vl_sets);
  // A second sweep sets none.
  CHECK(h.heavy().sl2vl_sets == 0);
}
