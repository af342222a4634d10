#include "routing/shortest_paths.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

// Every batch of every fabric against the oracle: distances, candidate
// edges (exactly the out-edges one hop closer) and the farthest-first order.
void check_against_oracle(const Fabric& f) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const testing::Oracle oracle(f);
  ShortestPathBatch batch(graph);
  uint64_t mismatches = 0;
  std::string first;
  const auto wrong = [&](const std::string& what) {
    if (mismatches++ == 0) first = what;
  };
  for (SwitchId begin = 0; begin < graph.switch_count(); begin += ShortestPathBatch::kWidth) {
    const uint32_t count = std::min(ShortestPathBatch::kWidth, graph.switch_count() - begin);
    batch.search(begin, count);
    REQUIRE(batch.count() == count);
    for (uint32_t j = 0; j < count; ++j) {
      const SwitchId to = batch.destination(j);
      REQUIRE(to == begin + j);
      const NodeIndex to_node = graph.node_of(to);
      size_t reaching = 0;
      for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
        const uint32_t expected = oracle.switch_distance(graph.node_of(sw), to_node);
        const uint32_t got = batch.distance(j, sw);
        if (expected == testing::kFar ? got != ShortestPathBatch::kUnreachable : got != expected) {
          wrong("distance of switch " + std::to_string(sw) + " to " + std::to_string(to));
        }
        if (expected != testing::kFar && sw != to) ++reaching;
        const auto words = batch.candidates(j, sw);
        const uint32_t edges = graph.edge_begin(sw + 1) - graph.edge_begin(sw);
        REQUIRE(words.size() == (edges + 63) / 64);
        for (uint32_t b = 0; b < edges; ++b) {
          const uint32_t e = graph.edge_begin(sw) + b;
          const uint32_t next = oracle.switch_distance(graph.node_of(graph.edge_target(e)), to_node);
          const bool closer = expected != testing::kFar && expected != 0 && next + 1 == expected;
          const bool marked = (words[b / 64] >> (b % 64)) & 1;
          if (closer != marked) wrong("candidate bit " + std::to_string(b) + " of switch " + std::to_string(sw));
        }
      }
      const auto order = batch.farthest_first(j);
      CHECK(order.size() == reaching);
      for (size_t i = 1; i < order.size(); ++i) {
        const uint32_t before = batch.distance(j, order[i - 1]), after = batch.distance(j, order[i]);
        if (before < after || (before == after && order[i - 1] >= order[i])) wrong("order");
      }
    }
  }
  INFO(first);
  CHECK(mismatches == 0);
}

TEST_CASE("the batched search finds the same shortest paths as a plain one", "[routing][paths]") {
  const std::vector<std::pair<std::string, std::function<Result<Fabric>()>>> fabrics = {
      {"4-ary 3-tree (48 switches: one batch)", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }},
      {"6-ary 3-tree (108 switches: two batches)", [] { return topogen::kary_ntree({.k = 6, .n = 3}); }},
      {"spines with 80 cables (two mask words)",
       [] { return topogen::leaf_spine({.leaves = 40, .spines = 2, .hosts_per_leaf = 1, .links_per_pair = 2}); }},
      {"8x8 torus", [] { return topogen::mesh({.dims = {8, 8}, .torus = true}); }},
      {"1x40 mesh (long paths)", [] { return topogen::mesh({.dims = {40}, .torus = false}); }},
      {"dragonfly", [] { return topogen::dragonfly({}); }},
      {"random regular", [] { return topogen::random_regular({.switches = 70, .degree = 3, .seed = 5}); }},
  };
  for (const auto& [name, make] : fabrics) {
    DYNAMIC_SECTION(name) {
      Fabric f = must(make());
      check_against_oracle(f);
    }
    DYNAMIC_SECTION(name << ", split by failed cables") {
      Fabric f = must(make());
      // Enough failures to cut some fabrics apart: unreachable switches too.
      must(topogen::fail_links(f, {.count = 8, .seed = 2}).status());
      check_against_oracle(f);
    }
  }
}

}  // namespace
}  // namespace ibsm::routing
