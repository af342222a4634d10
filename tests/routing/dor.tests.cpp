#include "routing/dor.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/cdg.h"
#include "routing/graph.h"
#include "routing/registry.h"
#include "routing/route_check.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"
#include "torus_fixtures.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

struct Routed {
  Fabric fabric;
  UnicastTables tables;
};

Routed route_dor(Fabric f) {
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  DorEngine engine;
  UnicastTables t = must(engine.compute(RoutingInput{graph}));
  must(validate_tables(graph, t));
  return {std::move(f), std::move(t)};
}

TEST_CASE("dor on meshes and hypercubes: every pair delivered on shortest paths, no credit loop", "[routing][dor]") {
  const std::vector<std::pair<std::string, std::function<Result<Fabric>()>>> fabrics = {
      {"4x4 mesh", [] { return topogen::mesh({.dims = {4, 4}}); }},
      {"3x3x3 mesh", [] { return topogen::mesh({.dims = {3, 3, 3}, .hosts_per_switch = 2}); }},
      {"hypercube of dimension 4", [] { return topogen::hypercube({.dimension = 4}); }},
      {"hypercube of dimension 5", [] { return topogen::hypercube({.dimension = 5, .hosts_per_switch = 2}); }},
  };
  for (const auto& [name, make] : fabrics) {
    DYNAMIC_SECTION(name) {
      const Routed r = route_dor(must(make()));
      const CheckSummary s = check_all_pairs(r.fabric, r.tables.lfts);
      INFO(s.to_string());
      CHECK(s.all_delivered());
      CHECK(s.max_stretch == 1.0);
      const CdgReport cdg = must(check_channel_dependencies(r.fabric, r.tables.lfts));
      INFO(cdg.to_string());
      CHECK(cdg.acyclic());
    }
  }
}

TEST_CASE("dor takes the lowest dimension first: x before y on a mesh", "[routing][dor]") {
  // Ports: host 1, then +x 2, -x 3, +y 4, -y 5 (topogen's mesh layout).
  const Routed r = route_dor(must(topogen::mesh({.dims = {4, 4}})));
  const Fabric& f = r.fabric;
  const NodeIndex corner = testing::switch_named(f, "sw-0-0");
  const NodeIndex far = testing::switch_named(f, "sw-3-3");
  const Lid far_lid = f.node(far).port(0).base_lid;
  // From (0,0): +x until x = 3, then +y.
  CHECK(r.tables.port(corner, far_lid) == 2);
  CHECK(r.tables.port(testing::switch_named(f, "sw-2-0"), far_lid) == 2);
  CHECK(r.tables.port(testing::switch_named(f, "sw-3-0"), far_lid) == 4);
  CHECK(r.tables.port(testing::switch_named(f, "sw-3-2"), far_lid) == 4);
  // Back from (3,3): -x first.
  const Lid corner_lid = f.node(corner).port(0).base_lid;
  CHECK(r.tables.port(far, corner_lid) == 3);
  CHECK(r.tables.port(testing::switch_named(f, "sw-0-3"), corner_lid) == 5);
}

TEST_CASE("dor on a torus: every pair delivered, and the ring's credit loop reported", "[routing][dor]") {
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{4, 4}, std::vector<uint32_t>{5, 5}}) {
    DYNAMIC_SECTION(dims[0] << "x" << dims[1] << " torus") {
      const Routed r = route_dor(must(topogen::mesh({.dims = dims, .torus = true})));
      CHECK(check_all_pairs(r.fabric, r.tables.lfts).all_delivered());
      const CdgReport cdg = must(check_channel_dependencies(r.fabric, r.tables.lfts));
      INFO(cdg.to_string());
      CHECK_FALSE(cdg.acyclic());
      CHECK_THAT(cdg.cycle_text, Catch::Contains("sw-"));
    }
  }
}

TEST_CASE("dor balances parallel cables between two switches", "[routing][dor]") {
  // A 2-switch torus dimension has two parallel cables (topogen's mesh doc).
  const Routed r = route_dor(must(topogen::mesh({.dims = {2}, .torus = true, .hosts_per_switch = 4})));
  const CheckSummary s = check_all_pairs(r.fabric, r.tables.lfts);
  CHECK(s.all_delivered());
  // Four hosts' LIDs each way over two cables: two routes on each.
  const NodeIndex a = testing::switch_named(r.fabric, "sw-0");
  uint32_t on2 = 0, on3 = 0;
  for (uint32_t lid = 1; lid < r.tables.lfts[a.value].size(); ++lid) {
    const uint8_t p = r.tables.lfts[a.value][lid];
    on2 += p == 5 ? 1 : 0;
    on3 += p == 6 ? 1 : 0;
  }
  CHECK(on2 >= 2);
  CHECK(on3 >= 2);
}

TEST_CASE("dor and torus-2QoS are registered under OpenSM's names", "[routing][dor]") {
  EngineRegistry registry;
  must(register_builtin_engines(registry));
  REQUIRE(registry.contains("dor"));
  REQUIRE(registry.contains("torus-2QoS"));
  CHECK(registry.create("dor")->name() == "dor");
  CHECK(registry.create("torus-2QoS")->name() == "torus-2QoS");
  CHECK(registry.create("torus-2QoS")->assigns_sls());
  CHECK_FALSE(registry.create("dor")->assigns_sls());
}

}  // namespace
}  // namespace ibsm::routing
