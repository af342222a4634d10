// Min-hop on the biggest three-level fat tree of 64-port switches whose LIDs
// fit the unicast space: it must route, deliver and fit; the time is printed
// (no assertion: the machine decides it). 48k hosts and 4k switches would
// need 53248 LIDs, more than the 49151 unicast LIDs there are, so this tree
// has 45056 hosts and 3840 switches (48896 LIDs): the same work per LID.
#include <chrono>

#include <catch2/catch.hpp>

#include "routing/minhop.h"
#include "routing/trace.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

TEST_CASE("minhop routes a 45k-endpoint fat tree that fills the lid space", "[routing][minhop][scale]") {
  // 1408 leaves of 32 hosts, 1408 middle and 1024 top switches.
  Fabric f = must(topogen::xgft({.down = {32, 32, 44}, .up = {1, 32, 32}}));
  REQUIRE(f.ca_count() == 45056);
  REQUIRE(f.switch_count() == 3840);
  testing::assign_lids(f);

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const auto t1 = clock::now();
  MinHopEngine engine;
  const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  const auto t2 = clock::now();
  CHECK(tables.linear_fdb_top.value == 45056 + 3840);
  CHECK(validate_tables(graph, tables).ok());

  // A fixed sample: every 2048th host to every LID.
  const CheckSummary s = check_all_pairs(f, tables.lfts, {.source_stride = 2048});
  const auto t3 = clock::now();
  INFO(s.to_string());
  CHECK(s.pairs == 22 * (45056 - 1));
  CHECK(s.all_delivered());
  CHECK(s.max_hops == 6);

  using ms = std::chrono::duration<double, std::milli>;
  WARN("minhop on 45056 endpoints / 3840 switches: graph " << ms(t1 - t0).count() << " ms, routing "
                                                         << ms(t2 - t1).count() << " ms, sampled check "
                                                         << ms(t3 - t2).count() << " ms; " << s.to_string());
}

}  // namespace
}  // namespace ibsm::routing
