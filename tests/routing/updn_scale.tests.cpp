// updn on the biggest three-level fat tree of 64-port switches whose LIDs
// fit the unicast space (see minhop_scale.tests.cpp for its shape): it must
// route, deliver a sample of pairs on shortest paths, and leave the channel
// dependency graph of all its routes acyclic.
#include <catch2/catch.hpp>

#include "routing/cdg.h"
#include "routing/trace.h"
#include "routing/updn.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

TEST_CASE("updn routes a 45k-endpoint fat tree deadlock-free", "[routing][updn][scale]") {
  // 1408 leaves of 32 hosts, 1408 middle and 1024 top switches.
  Fabric f = must(topogen::xgft({.down = {32, 32, 44}, .up = {1, 32, 32}}));
  REQUIRE(f.ca_count() == 45056);
  testing::assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));

  UpDnEngine engine;
  const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  CHECK(validate_tables(graph, tables).ok());
  CHECK(engine.orientation().roots.size() == 1024);

  // A fixed sample: every 2048th host to every LID.
  const CheckSummary s = check_all_pairs(f, tables.lfts, {.source_stride = 2048});
  INFO(s.to_string());
  CHECK(s.pairs == 22 * (45056 - 1));
  CHECK(s.all_delivered());
  CHECK(s.max_hops == 6);

  const CdgReport cdg = must(check_channel_dependencies(f, tables.lfts));
  INFO(cdg.to_string());
  CHECK(cdg.acyclic());
  // Both directions of 2 x 45056 switch cables, and every host's injection.
  CHECK(cdg.channels == 4 * 45056 + 45056);
}

}  // namespace
}  // namespace ibsm::routing
