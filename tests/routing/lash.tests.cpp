#include "routing/lash.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "layered_fixtures.h"
#include "routing/chain.h"
#include "routing/graph.h"
#include "routing/minhop.h"
#include "routing/registry.h"
#include "routing/route_check.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::Fixture;
using testing::must;
using testing::Routed;

Routed route_lash(const Fabric& f, uint8_t max_vls = 8) { return testing::route_layered<LashEngine>(f, max_vls); }

// min-hop's tables and their verdict on one VL.
RouteCheck check_minhop(const Fabric& f, UnicastTables* tables = nullptr) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  MinHopEngine minhop;
  UnicastTables t = must(minhop.compute(RoutingInput{.graph = graph}));
  RouteCheck check = check_routes(f, t.lfts, {.engine = "minhop"});
  if (tables != nullptr) *tables = std::move(t);
  return check;
}

TEST_CASE("lash delivers every pair with acyclic dependencies on every vl, within the budget", "[routing][lash]") {
  for (const Fixture& fx : testing::layered_fixtures()) {
    DYNAMIC_SECTION(fx.name) {
      Fabric f = must(fx.make());
      assign_lids(f);
      testing::check_deadlock_free<LashEngine>(f);
      // Exactly the fabrics where min-hop alone leaves a credit loop need a
      // second layer.
      const Routed r = route_lash(f);
      const RouteCheck plain = check_minhop(f);
      INFO(plain.to_string());
      CHECK((r.layers > 1) == plain.has_cycle());
    }
  }
}

TEST_CASE("lash's layering is put to work: several fixtures need a second layer", "[routing][lash]") {
  uint32_t layered = 0;
  for (const Fixture& fx : testing::layered_fixtures()) {
    Fabric f = must(fx.make());
    assign_lids(f);
    layered += route_lash(f).layers > 1;
  }
  CHECK(layered >= 3);
}

TEST_CASE("lash's tables are min-hop's: only the sls differ", "[routing][lash]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
  assign_lids(f);
  UnicastTables tables;
  const RouteCheck plain = check_minhop(f, &tables);
  INFO(plain.to_string());
  CHECK(plain.has_cycle());
  const RoutingGraph graph = must(RoutingGraph::build(f));
  LashEngine lash;
  CHECK(must(lash.compute(RoutingInput{.graph = graph})).lfts == tables.lfts);
  CHECK(lash.layers() > 1);
}

TEST_CASE("lash stays deadlock-free around failed cables, and with lmc", "[routing][lash]") {
  for (const Fixture& fx : testing::layered_fixtures()) {
    DYNAMIC_SECTION(fx.name << ", 4 failed cables") {
      Fabric f = must(fx.make());
      if (4 > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
      REQUIRE(topogen::fail_links(f, {.count = 4, .seed = 15}).ok());
      assign_lids(f);
      const Routed r = route_lash(f);
      INFO(r.check.to_string());
      CHECK(r.check.pairs.looping == 0);
      REQUIRE(r.check.cdg);
      CHECK(r.check.cdg->acyclic());
      CHECK(r.layers <= 8);
    }
    if (fx.name == "4x4 torus" || fx.name == "dragonfly") {
      DYNAMIC_SECTION(fx.name << ", lmc 2") {
        Fabric f = must(fx.make());
        assign_lids(f, 2);
        testing::check_deadlock_free<LashEngine>(f);
      }
    }
  }
}

TEST_CASE("lash refuses a vl budget too small, and the chain moves on", "[routing][lash][chain]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  LashEngine engine;
  const Result<UnicastTables> r = engine.compute(RoutingInput{.graph = graph, .max_vls = 1});
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("lash: the shortest paths need more layers"));
  CHECK_THAT(r.status().message(), Catch::Contains("VL budget of 1"));

  const Result<RoutingOutcome> outcome = route_snapshot(f, "lash", null_log_sink(), EngineSettings{.max_vls = 1});
  REQUIRE(outcome.ok());
  CHECK(outcome->engine == "minhop");
  REQUIRE(outcome->refusals.size() == 1);
  CHECK(outcome->refusals[0].engine == "lash");

  const Result<RoutingOutcome> enough = route_snapshot(f, "lash", null_log_sink(), EngineSettings{.max_vls = 8});
  REQUIRE(enough.ok());
  CHECK(enough->engine == "lash");
  CHECK(enough->refusals.empty());
}

TEST_CASE("over the vl budget lash puts a switch's lids on one tree and stays deadlock-free within it",
          "[routing][lash][vl]") {
  testing::check_shared_trees_within<LashEngine>(testing::random_64(), 4);
}

TEST_CASE("lash gives sl2vl tables only when it layers: sl s on vl s % layers", "[routing][lash][vl]") {
  SECTION("a fat tree: one layer, no tables") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 2}));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    const RoutingInput input{.graph = graph};
    LashEngine engine;
    must(engine.compute(input).status());
    CHECK(engine.layers() == 1);
    CHECK_FALSE(engine.sl2vl(input));
  }
  SECTION("a torus: tables on every cabled port") {
    Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    const RoutingInput input{.graph = graph};
    LashEngine engine;
    must(engine.compute(input).status());
    REQUIRE(engine.layers() > 1);
    const std::vector<Sl2VlTable> tables = engine.sl2vl(input).value();
    CHECK_FALSE(tables.empty());
    for (const Sl2VlTable& t : tables) {
      for (uint8_t sl = 0; sl < 16; ++sl) CHECK(t.vl_of_sl[sl] == sl % engine.layers());
    }
  }
}

TEST_CASE("lash is registered, and promises deadlock freedom", "[routing][lash]") {
  EngineRegistry registry;
  must(register_builtin_engines(registry, {}));
  CHECK(registry.contains("lash"));
  CHECK(registry.create("lash")->name() == "lash");
  CHECK(promises_deadlock_freedom("lash"));
}

}  // namespace
}  // namespace ibsm::routing
