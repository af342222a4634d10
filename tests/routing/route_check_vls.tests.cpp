// The route checker on the VLs of an engine's SLs (engine_vls): a hand-built
// ring whose tables send everything clockwise has a credit loop on one VL,
// and none once the engine puts the paths that wrap on a second VL.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/engine.h"
#include "routing/graph.h"
#include "routing/route_check.h"
#include "routing/torus_2qos.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

// Every switch of a ring from generators.h's mesh sends each LID it does not
// deliver itself out of port 2: the "+" direction all the way round.
UnicastTables clockwise(const Fabric& f, const RoutingGraph& graph) {
  UnicastTables t = UnicastTables::unrouted(graph);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const NodeIndex sw = graph.node_of(s);
    for (uint32_t lid = 1; lid <= graph.max_lid(); ++lid) {
      const PortRef owner = graph.owner_of(Lid{static_cast<uint16_t>(lid)});
      if (!owner.node.valid() || owner.node == sw) continue;
      const Port& p = f.node(owner.node).port(owner.port);
      t.lfts[sw.value][lid] = owner.port != 0 && p.remote_node == sw ? p.remote_port : uint8_t{2};
    }
  }
  return t;
}

// A stand-in for an engine with SLs: with `dateline`, a path from a switch
// further round than its destination's (it wraps past switch 0) gets SL 1.
class RingEngine final : public RoutingEngine {
 public:
  RingEngine(bool dateline, std::optional<std::vector<Sl2VlTable>> tables)
      : dateline_(dateline), tables_(std::move(tables)) {}
  std::string_view name() const override { return "ring"; }
  Result<UnicastTables> compute(const RoutingInput& input) override { return clockwise(input.fabric(), input.graph); }
  uint8_t path_sl(const RoutingInput& input, Lid source, Lid destination) const override {
    return dateline_ && index(input, source) > index(input, destination) ? 1 : 0;
  }
  bool assigns_sls() const override { return true; }
  std::optional<std::vector<Sl2VlTable>> sl2vl(const RoutingInput&) const override { return tables_; }

 private:
  // The switch number a LID's port belongs to or hangs off.
  static SwitchId index(const RoutingInput& input, Lid lid) {
    const PortRef owner = input.graph.owner_of(lid);
    const Node& node = input.fabric().node(owner.node);
    return input.graph.switch_of(node.is_switch() ? owner.node : node.port(owner.port).remote_node);
  }
  bool dateline_;
  std::optional<std::vector<Sl2VlTable>> tables_;
};

TEST_CASE("the checker finds the cycle on one vl and none when the engine splits paths over two",
          "[routing][route_check][vl]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{.graph = graph};
  const UnicastTables tables = clockwise(f, graph);

  SECTION("every path on sl 0: a cycle on vl 0, and the engine's promise broken") {
    const RingEngine engine(false, std::nullopt);
    const RouteCheck check = check_routes(f, tables.lfts, {.engine = "dfsssp", .vls = engine_vls(engine, input)});
    INFO(check.to_string());
    CHECK(check.pairs.all_delivered());
    CHECK(check.has_cycle());
    CHECK_THAT(check.to_string(), Catch::Contains("cdg cycle on vl 0"));
    CHECK_FALSE(check.ok());
  }
  SECTION("the wrapping paths on sl 1 = vl 1: acyclic on vls 0 and 1") {
    const RingEngine engine(true, std::nullopt);
    const RouteCheck check = check_routes(f, tables.lfts, {.engine = "dfsssp", .vls = engine_vls(engine, input)});
    INFO(check.to_string());
    CHECK_FALSE(check.has_cycle());
    REQUIRE(check.cdg);
    REQUIRE(check.cdg->vls.size() == 2);
    CHECK(check.cdg->vls[1].vl == 1);
    CHECK_THAT(check.to_string(), Catch::Contains("cdg acyclic on vls 0,1"));
    CHECK(check.ok());
    // The same tables judged on vl 0 alone have the loop.
    CHECK(check_routes(f, tables.lfts).has_cycle());
  }
  // Identity tables for every port pair (a CA port: in = out), except that
  // SL 1 goes on VL 0 out of the ports `sl1_on_vl0` picks.
  const auto tables_where = [&f](const auto& sl1_on_vl0) {
    std::vector<Sl2VlTable> out;
    for (uint32_t n = 0; n < f.node_count(); ++n) {
      const Node& node = f.node(NodeIndex{n});
      for (uint8_t in = 0; in <= node.num_ports; ++in) {
        for (uint8_t o = 1; o <= node.num_ports; ++o) {
          if (!node.is_switch() && in != o) continue;
          Sl2VlTable t{.node = NodeIndex{n}, .in_port = in, .out_port = o};
          for (uint8_t sl = 0; sl < 16; ++sl) t.vl_of_sl[sl] = sl;
          if (sl1_on_vl0(node)) t.vl_of_sl[1] = 0;
          out.push_back(t);
        }
      }
    }
    return out;
  };
  SECTION("the switches' sl2vl tables decide the vl at every hop: sl 1 mapped to vl 0 is the cycle again") {
    const RingEngine engine(true, tables_where([](const Node& n) { return n.is_switch(); }));
    const RouteCheck check = check_routes(f, tables.lfts, {.vls = engine_vls(engine, input)});
    INFO(check.to_string());
    CHECK(check.has_cycle());
  }
  SECTION("only the CA ports' tables map sl 1 to vl 0: the switches put it back on vl 1, acyclic") {
    const RingEngine engine(true, tables_where([](const Node& n) { return !n.is_switch(); }));
    const RouteCheck check = check_routes(f, tables.lfts, {.vls = engine_vls(engine, input)});
    INFO(check.to_string());
    CHECK_FALSE(check.has_cycle());
  }
  SECTION("an engine without sls: every packet on vl 0") {
    class Plain final : public RoutingEngine {
     public:
      std::string_view name() const override { return "plain"; }
      Result<UnicastTables> compute(const RoutingInput&) override { return UnicastTables{}; }
    };
    const CdgOptions options = engine_vls(Plain{}, input);
    CHECK_FALSE(options.path_vl);
    CHECK_FALSE(options.path_sl);
    CHECK_FALSE(options.destination_vl);
  }
}

TEST_CASE("torus-2QoS is judged on its sl2vl tables hop by hop: a 4x4 torus is acyclic, and promised",
          "[routing][route_check][vl][torus]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{.graph = graph};
  Torus2QosEngine engine(nullptr);
  const UnicastTables tables = must(engine.compute(input));
  const CdgOptions vls = engine_vls(engine, input);
  CHECK(vls.path_sl);
  CHECK(vls.sl2vl);
  const RouteCheck check = check_routes(f, tables.lfts, {.engine = std::string(kTorus2QosName), .vls = vls});
  INFO(check.to_string());
  CHECK(check.deadlock_free_promised);
  CHECK(check.pairs.all_delivered());
  CHECK_FALSE(check.has_cycle());
  CHECK(check.ok());
  // The same tables on one VL have the torus' credit loop.
  CHECK(check_routes(f, tables.lfts).has_cycle());
}

}  // namespace
}  // namespace ibsm::routing
