// The fabrics and the judgement the layered engines (dfsssp, lash) are
// tested on: every pair delivered, every VL's dependency graph acyclic, no
// VL beyond the layers nor the budget, judged on the VLs of the engine's SLs
// and SL2VL tables as the daemon's routing step does.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/graph.h"
#include "routing/layered_engine.h"
#include "routing/route_check.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing::testing {

struct Fixture {
  std::string name;
  std::function<Result<Fabric>()> make;
};

inline std::vector<Fixture> layered_fixtures() {
  using namespace topogen;
  return {
      {"4-ary 3-tree", [] { return kary_ntree({.k = 4, .n = 3}); }},
      {"slimmed xgft", [] { return xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}); }},
      {"ring of 6", [] { return mesh({.dims = {6}, .torus = true}); }},
      {"4x4 torus", [] { return mesh({.dims = {4, 4}, .torus = true}); }},
      {"3x3x3 torus", [] { return mesh({.dims = {3, 3, 3}, .torus = true}); }},
      {"4x3 mesh", [] { return mesh({.dims = {4, 3}, .torus = false, .hosts_per_switch = 2}); }},
      {"hypercube 4", [] { return hypercube({.dimension = 4}); }},
      {"dragonfly", [] { return dragonfly({.a = 4, .p = 2, .h = 2, .g = 9}); }},
      {"random regular", [] { return random_regular({.switches = 16, .degree = 4, .seed = 1}); }},
      {"random regular 2",
       [] { return random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 7}); }},
  };
}

struct Routed {
  RouteCheck check;
  uint8_t layers = 0;
};

// Routes `f` with the engine within `max_vls` and checks its tables on the VLs
// of its SLs: what the daemon's routing step does.
template <typename Engine>
Routed route_layered(const Fabric& f, uint8_t max_vls = 8) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{.graph = graph, .max_vls = max_vls};
  Engine engine;
  UnicastTables tables = must(engine.compute(input));
  must(validate_tables(graph, tables));
  Routed r;
  r.layers = engine.layers();
  r.check = check_routes(f, tables.lfts, {.engine = std::string(engine.name()), .vls = engine_vls(engine, input)});
  return r;
}

// Every pair with a path is delivered, every VL's dependency graph is
// acyclic, and no VL beyond the budget (nor beyond the layers) carries any.
template <typename Engine>
void check_deadlock_free(const Fabric& f, uint8_t max_vls = 8) {
  const Routed r = route_layered<Engine>(f, max_vls);
  INFO(r.check.to_string());
  CHECK(r.check.pairs.pairs > 0);
  CHECK(r.check.deadlock_free_promised);
  CHECK(r.check.pairs.all_delivered());
  REQUIRE(r.check.cdg);
  CHECK(r.check.cdg->acyclic());
  CHECK(r.layers >= 1);
  CHECK(r.layers <= max_vls);
  for (const CdgVlSummary& v : r.check.cdg->vls) {
    CHECK(v.acyclic);
    CHECK(v.vl < r.layers);
  }
  CHECK(r.check.ok());
}

// bench/vl_routing.sh's random 64-switch fabric: min-hop's and sssp's
// balanced paths need 5 layers, one tree per destination switch fits in 4.
inline Fabric random_64() {
  Fabric f = must(topogen::random_regular({.switches = 64, .degree = 8, .hosts_per_switch = 4, .seed = 1}));
  assign_lids(f);
  return f;
}

// Whether every LID hanging off each switch takes the same port as the
// first endpoint LID there, at every other switch (routing/shared_trees.h).
inline bool one_tree_per_switch(const RoutingGraph& graph, const UnicastTables& tables) {
  for (SwitchId to = 0; to < graph.switch_count(); ++to) {
    Lid lead;
    for (const Destination& d : graph.destinations_of(to)) {
      if (d.port != 0 && lead.value == 0) lead = d.base;
    }
    if (lead.value == 0) continue;
    for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
      if (sw == to) continue;
      for (const Destination& d : graph.destinations_of(to)) {
        for (uint32_t k = 0; k < d.lid_count(); ++k) {
          if (tables.port(graph.node_of(sw), Lid{static_cast<uint16_t>(d.base.value + k)}) !=
              tables.port(graph.node_of(sw), lead)) {
            return false;
          }
        }
      }
    }
  }
  return true;
}

// Over the budget the engine's balanced paths need, the engine puts every
// LID of a switch on one tree and stays deadlock-free within the budget;
// with VLs enough it keeps its balanced trees.
template <typename Engine>
void check_shared_trees_within(const Fabric& f, uint8_t budget) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  Engine wide;
  const UnicastTables balanced = must(wide.compute(RoutingInput{.graph = graph, .max_vls = 8}));
  INFO("layers with 8 vls: " << int{wide.layers()});
  REQUIRE(wide.layers() > budget);
  CHECK_FALSE(one_tree_per_switch(graph, balanced));

  Engine narrow;
  const UnicastTables shared = must(narrow.compute(RoutingInput{.graph = graph, .max_vls = budget}));
  CHECK(narrow.layers() <= budget);
  CHECK(one_tree_per_switch(graph, shared));
  check_deadlock_free<Engine>(f, budget);
}

}  // namespace ibsm::routing::testing
