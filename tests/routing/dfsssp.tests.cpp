#include "routing/dfsssp.h"

#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/chain.h"
#include "routing/graph.h"
#include "routing/registry.h"
#include "routing/route_check.h"
#include "routing/sssp.h"
#include "routing/vl_budget.h"
#include "layered_fixtures.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

using testing::Fixture;
using testing::Routed;

Routed route_dfsssp(const Fabric& f, uint8_t max_vls = 8) { return testing::route_layered<DfssspEngine>(f, max_vls); }
void check_deadlock_free(const Fabric& f, uint8_t max_vls = 8) { testing::check_deadlock_free<DfssspEngine>(f, max_vls); }
std::vector<Fixture> fixtures() { return testing::layered_fixtures(); }

// sssp's tables and their verdict on one VL.
RouteCheck check_sssp(const Fabric& f, UnicastTables* tables = nullptr) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  SsspEngine sssp;
  UnicastTables t = must(sssp.compute(RoutingInput{.graph = graph}));
  RouteCheck check = check_routes(f, t.lfts, {.engine = "sssp"});
  if (tables != nullptr) *tables = std::move(t);
  return check;
}

// A fabric whose sssp tables have a credit loop (random_regular's seed 7).
Fabric cyclic_fabric() {
  Fabric f = must(topogen::random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 7}));
  assign_lids(f);
  return f;
}

TEST_CASE("dfsssp delivers every pair with acyclic dependencies on every vl, within the budget",
          "[routing][dfsssp]") {
  for (const Fixture& fx : fixtures()) {
    DYNAMIC_SECTION(fx.name) {
      Fabric f = must(fx.make());
      assign_lids(f);
      check_deadlock_free(f);
      // Exactly the fabrics where sssp alone leaves a credit loop need a
      // second layer; the others (fat trees) stay on one.
      const Routed r = route_dfsssp(f);
      const RouteCheck plain = check_sssp(f);
      INFO(plain.to_string());
      CHECK((r.layers > 1) == plain.has_cycle());
    }
  }
}

TEST_CASE("the layering is put to work: several fixtures need a second layer", "[routing][dfsssp]") {
  uint32_t layered = 0;
  for (const Fixture& fx : fixtures()) {
    Fabric f = must(fx.make());
    assign_lids(f);
    layered += route_dfsssp(f).layers > 1;
  }
  CHECK(layered >= 3);
}

TEST_CASE("without its layers sssp's tables have the credit loops dfsssp breaks", "[routing][dfsssp]") {
  const Fabric f = cyclic_fabric();
  UnicastTables tables;
  const RouteCheck plain = check_sssp(f, &tables);
  INFO(plain.to_string());
  CHECK(plain.has_cycle());
  // dfsssp's tables are sssp's: only the SLs differ.
  const RoutingGraph graph = must(RoutingGraph::build(f));
  DfssspEngine dfsssp;
  CHECK(must(dfsssp.compute(RoutingInput{.graph = graph})).lfts == tables.lfts);
}

TEST_CASE("dfsssp stays deadlock-free around failed cables", "[routing][dfsssp]") {
  for (const Fixture& fx : fixtures()) {
    for (uint64_t count : {1, 4}) {
      DYNAMIC_SECTION(fx.name << ", " << count << " failed cables") {
        Fabric f = must(fx.make());
        if (count > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
        REQUIRE(topogen::fail_links(f, {.count = count, .seed = 11 + count}).ok());
        assign_lids(f);
        const Routed r = route_dfsssp(f);
        INFO(r.check.to_string());
        // A failed cable may split a small fabric: what has a path is delivered.
        CHECK(r.check.pairs.looping == 0);
        REQUIRE(r.check.cdg);
        CHECK(r.check.cdg->acyclic());
        CHECK(r.layers <= 8);
      }
    }
  }
}

TEST_CASE("dfsssp with lmc layers every lid of every port", "[routing][dfsssp][lmc]") {
  for (const char* name : {"4x4 torus", "dragonfly", "4-ary 3-tree"}) {
    for (const Fixture& fx : fixtures()) {
      if (fx.name != name) continue;
      DYNAMIC_SECTION(fx.name << ", lmc 2") {
        Fabric f = must(fx.make());
        assign_lids(f, 2);
        check_deadlock_free(f);
      }
    }
  }
}

TEST_CASE("dfsssp's path sls follow the source's switch and the destination lid", "[routing][dfsssp]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{.graph = graph};
  DfssspEngine engine;
  must(engine.compute(input).status());
  REQUIRE(engine.layers() > 1);
  // Two hosts on one switch share every path's SL; some pair is off layer 0.
  bool some_above_0 = false;
  for (const Destination& a : graph.destinations()) {
    for (const Destination& b : graph.destinations()) {
      if (a.port == 0 || b.port == 0) continue;
      const uint8_t sl = engine.path_sl(input, a.base, b.base);
      CHECK(sl < engine.layers());
      some_above_0 = some_above_0 || sl > 0;
      for (const Destination& c : graph.destinations_of(a.sw)) {
        if (c.port != 0) CHECK(engine.path_sl(input, c.base, b.base) == sl);
      }
    }
  }
  CHECK(some_above_0);
  // A LID nobody owns, or beyond the table, is SL 0.
  CHECK(engine.path_sl(input, Lid{0xBFFF}, Lid{1}) == 0);
}

TEST_CASE("a vl budget too small is refused, and the chain moves on to min-hop", "[routing][dfsssp][chain]") {
  const Fabric f = cyclic_fabric();
  const RoutingGraph graph = must(RoutingGraph::build(f));
  SECTION("max_vls 1") {
    DfssspEngine engine;
    const Result<UnicastTables> r = engine.compute(RoutingInput{.graph = graph, .max_vls = 1});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("than the VL budget of 1"));

    const Result<RoutingOutcome> outcome =
        route_snapshot(f, "dfsssp", null_log_sink(), EngineSettings{.max_vls = 1});
    REQUIRE(outcome.ok());
    CHECK(outcome->engine == "minhop");
    REQUIRE(outcome->refusals.size() == 1);
    CHECK(outcome->refusals[0].engine == "dfsssp");
    CHECK_THAT(outcome->refusals[0].reason.message(), Catch::Contains("VL budget of 1"));
  }
  SECTION("the ports' VLCap narrows the budget") {
    Fabric narrow = f;
    for (uint32_t n = 0; n < narrow.node_count(); ++n) {
      for (Port& p : narrow.node(NodeIndex{n}).ports) p.vl_cap = 1;  // VL0 only
    }
    const RoutingGraph g = must(RoutingGraph::build(narrow));
    CHECK(vl_budget(RoutingInput{.graph = g, .max_vls = 15}) == 1);
    DfssspEngine engine;
    CHECK_FALSE(engine.compute(RoutingInput{.graph = g, .max_vls = 15}).ok());
    CHECK(route_snapshot(narrow, "dfsssp,no_fallback", null_log_sink()).status().code() ==
          StatusCode::failed_precondition);
  }
  SECTION("enough vls") {
    const Result<RoutingOutcome> outcome = route_snapshot(f, "dfsssp", null_log_sink(), EngineSettings{.max_vls = 4});
    REQUIRE(outcome.ok());
    CHECK(outcome->engine == "dfsssp");
    CHECK(outcome->refusals.empty());
  }
}

TEST_CASE("over the vl budget dfsssp puts a switch's lids on one tree and stays deadlock-free within it",
          "[routing][dfsssp][vl]") {
  testing::check_shared_trees_within<DfssspEngine>(testing::random_64(), 4);
  // Where even one tree per switch needs more layers, it refuses and says so.
  const Fabric f = cyclic_fabric();
  const RoutingGraph graph = must(RoutingGraph::build(f));
  DfssspEngine engine;
  const Result<UnicastTables> r = engine.compute(RoutingInput{.graph = graph, .max_vls = 1});
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("even with one tree per destination switch"));
}

TEST_CASE("vl codes count data vls as IBA 14.2.5.6 numbers them", "[routing][vl]") {
  CHECK(data_vls_of_code(0) == 0);
  CHECK(data_vls_of_code(1) == 1);
  CHECK(data_vls_of_code(2) == 2);
  CHECK(data_vls_of_code(3) == 4);
  CHECK(data_vls_of_code(4) == 8);
  CHECK(data_vls_of_code(5) == 15);
  CHECK(data_vls_of_code(6) == 0);
}

}  // namespace
}  // namespace ibsm::routing
