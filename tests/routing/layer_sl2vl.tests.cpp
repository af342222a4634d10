#include "routing/layer_sl2vl.h"

#include <array>
#include <set>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/dfsssp.h"
#include "routing/graph.h"
#include "routing/route_check.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

TEST_CASE("layer sl2vl tables: every cabled switch port pair and ca port, sl s on vl s % layers", "[routing][vl]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
  REQUIRE(topogen::fail_links(f, {.count = 1, .seed = 3}).ok());
  const std::vector<Sl2VlTable> tables = layer_sl2vl_tables(f, 3);
  std::set<std::tuple<uint32_t, uint8_t, uint8_t>> got;
  for (const Sl2VlTable& t : tables) {
    CHECK(got.emplace(t.node.value, t.in_port, t.out_port).second);  // one table per pair
    for (uint8_t sl = 0; sl < 16; ++sl) CHECK(t.vl_of_sl[sl] == sl % 3);
  }
  std::set<std::tuple<uint32_t, uint8_t, uint8_t>> want;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    for (uint8_t o = 1; o <= n.num_ports; ++o) {
      if (!n.port(o).connected()) continue;
      if (!n.is_switch()) {
        want.emplace(i, o, o);
        continue;
      }
      for (uint8_t in = 0; in <= n.num_ports; ++in) {
        if (in != o && (in == 0 || n.port(in).connected())) want.emplace(i, in, o);
      }
    }
  }
  CHECK(got == want);
  // One layer: every SL on VL 0.
  for (const Sl2VlTable& t : layer_sl2vl_tables(f, 1)) CHECK(t.vl_of_sl == std::array<uint8_t, 16>{});
}

TEST_CASE("dfsssp's sl2vl tables keep every layer on its vl: the check hop by hop stays acyclic", "[routing][vl]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{.graph = graph};
  DfssspEngine engine;
  const UnicastTables tables = must(engine.compute(input));
  REQUIRE(engine.layers() > 1);
  REQUIRE(engine.sl2vl(input));
  const CdgOptions vls = engine_vls(engine, input);
  CHECK(vls.sl2vl);  // the tables are used, hop by hop
  const RouteCheck check = check_routes(f, tables.lfts, {.engine = "dfsssp", .vls = vls});
  INFO(check.to_string());
  CHECK(check.ok());
  CHECK_FALSE(check.has_cycle());
  REQUIRE(check.cdg);
  CHECK(check.cdg->vls.size() == engine.layers());
}

}  // namespace
}  // namespace ibsm::routing
