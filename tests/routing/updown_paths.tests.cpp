#include "routing/updown_paths.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/updn.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"
#include "updown_oracle.h"

namespace ibsm::routing {
namespace {

using testing::must;

// Every batch against the one-destination reference: distances, the
// switches that descend, candidate edges and the farthest-first order.
void check_against_oracle(const RoutingGraph& graph, const UpDownOrientation& o) {
  UpDownPathBatch batch(graph, o.up);
  testing::UpDownOracle oracle(graph, o.up);
  uint64_t mismatches = 0, candidates = 0;
  std::string first;
  const auto wrong = [&](const std::string& what) {
    if (mismatches++ == 0) first = what;
  };
  for (SwitchId begin = 0; begin < graph.switch_count(); begin += PathBatch::kWidth) {
    const uint32_t count = std::min(PathBatch::kWidth, graph.switch_count() - begin);
    batch.search(begin, count);
    for (uint32_t j = 0; j < count; ++j) {
      const SwitchId to = begin + j;
      oracle.search(to);
      size_t reaching = 0;
      for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
        const std::string where = "switch " + std::to_string(sw) + " toward " + std::to_string(to);
        const uint32_t expected = oracle.distance(sw);
        const uint32_t got = batch.distance(j, sw);
        if (expected == testing::UpDownOracle::kFar ? got != PathBatch::kUnreachable : got != expected) {
          wrong("distance of " + where);
        }
        if (((batch.reaches(sw) >> j) & 1) != (expected != testing::UpDownOracle::kFar)) wrong("reach of " + where);
        if (((batch.descends(sw) >> j) & 1) != oracle.descends(sw)) wrong("descent of " + where);
        if (expected != testing::UpDownOracle::kFar && sw != to) ++reaching;
        const auto words = batch.candidates(j, sw);
        for (uint32_t b = 0; b < graph.edge_begin(sw + 1) - graph.edge_begin(sw); ++b) {
          const bool marked = (words[b / 64] >> (b % 64)) & 1;
          const bool expect = oracle.candidate(sw, graph.edge_begin(sw) + b);
          candidates += marked;
          if (marked != expect) wrong("candidate bit " + std::to_string(b) + " of " + where);
        }
      }
      const auto order = batch.farthest_first(j);
      if (order.size() != reaching) wrong("order size toward " + std::to_string(to));
      for (size_t i = 1; i < order.size(); ++i) {
        const uint32_t before = batch.distance(j, order[i - 1]), after = batch.distance(j, order[i]);
        if (before < after || (before == after && order[i - 1] >= order[i])) wrong("order");
      }
    }
  }
  INFO(first);
  CHECK(mismatches == 0);
  CHECK(candidates > 0);
}

TEST_CASE("the batched up*/down* search agrees with a plain one", "[routing][paths][updn]") {
  const std::vector<std::pair<std::string, std::function<Result<Fabric>()>>> fabrics = {
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }},
      {"6-ary 3-tree (two batches)", [] { return topogen::kary_ntree({.k = 6, .n = 3}); }},
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
      testing::assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      SECTION("updn, automatic roots") { check_against_oracle(graph, updn_orientation(graph, find_updn_roots(graph))); }
      SECTION("dnup") { check_against_oracle(graph, dnup_orientation(graph)); }
      SECTION("updn from an odd root: long detours and switches that descend the long way") {
        const SwitchId root[1] = {graph.switch_count() - 1};
        check_against_oracle(graph, updn_orientation(graph, root));
      }
      SECTION("updn from three roots: pairs without a legal path") {
        const SwitchId roots[3] = {0, graph.switch_count() / 2, graph.switch_count() - 1};
        check_against_oracle(graph, updn_orientation(graph, roots));
      }
    }
  }
}

TEST_CASE("the batched up*/down* search on a fabric with failed cables", "[routing][paths][updn]") {
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  must(topogen::fail_links(f, {.count = 10, .seed = 3}).status());
  testing::assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  check_against_oracle(graph, updn_orientation(graph, find_updn_roots(graph)));
}

}  // namespace
}  // namespace ibsm::routing
