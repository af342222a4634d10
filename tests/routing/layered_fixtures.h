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

}  // namespace ibsm::routing::testing
