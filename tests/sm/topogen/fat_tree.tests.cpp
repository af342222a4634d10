#include <set>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

namespace {

uint64_t power(uint64_t b, unsigned e) {
  uint64_t r = 1;
  while (e--) r *= b;
  return r;
}

// Switches reachable from `from` going only up (to switches on a higher level,
// told by the name prefix order leaf < agg < spine).
int level_of(const Node& n) {
  if (n.name.starts_with("leaf-")) return 1;
  if (n.name.starts_with("agg-")) return 2;
  if (n.name.starts_with("spine-")) return 3;
  return 0;
}

std::set<NodeIndex> tops_reached_going_up(const Fabric& f, NodeIndex from) {
  std::set<NodeIndex> tops, seen{from};
  std::vector<NodeIndex> todo{from};
  while (!todo.empty()) {
    const NodeIndex at = todo.back();
    todo.pop_back();
    bool went_up = false;
    for (const auto& [peer, cables] : switch_neighbours(f, at)) {
      if (level_of(f.node(peer)) == level_of(f.node(at)) + 1) {
        went_up = true;
        if (seen.insert(peer).second) todo.push_back(peer);
      }
    }
    if (!went_up) tops.insert(at);
  }
  return tops;
}

}  // namespace

TEST_CASE("k-ary n-tree has k^n hosts and n levels of k^(n-1) switches", "[topogen][fat_tree]") {
  const auto [k, n] = GENERATE(table<uint32_t, uint32_t>({{2, 2}, {4, 3}, {3, 3}, {6, 2}, {2, 4}}));
  INFO("k=" << k << " n=" << n);
  KaryNTreeParams p{k, n, {}};
  const Fabric f = value_of(kary_ntree(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.cas == power(k, n));
  CHECK(e.switches == n * power(k, n - 1));
  CHECK(e.links == n * power(k, n));  // k^n cables between each pair of adjacent levels
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));
  for (const Node& node : f.nodes()) {
    if (!node.is_switch()) {
      CHECK(cabled_ports(node) == 1);
      continue;
    }
    CHECK(unsigned{node.num_ports} == 2 * k);
    const bool top = node.name.starts_with("spine-") || (n == 1);
    CHECK(cabled_ports(node) == (top ? k : 2 * k));
  }
}

TEST_CASE("in a 3-level fat tree every leaf reaches every spine going up", "[topogen][fat_tree]") {
  const Fabric f = value_of(kary_ntree({4, 3, {}}));
  std::set<NodeIndex> spines;
  for (uint32_t i = 0; i < 16; ++i) spines.insert(named(f, fmt::format("spine-{}", i)));
  for (uint32_t i = 0; i < 16; ++i) {
    INFO("leaf-" << i);
    CHECK(tops_reached_going_up(f, named(f, fmt::format("leaf-{}", i))) == spines);
  }
}

TEST_CASE("xgft: slimmed top level, ports down first then up", "[topogen][fat_tree][xgft]") {
  // 3 levels: 4 hosts per leaf, 3 leaves per agg subtree, 2 subtrees;
  // 2 aggs per leaf, 1 spine per agg (a slimmed top).
  XgftParams p;
  p.down = {4, 3, 2};
  p.up = {1, 2, 1};
  const Fabric f = value_of(xgft(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.cas == 4 * 3 * 2);
  // leaves = m2*m3 = 6, aggs = m3*w2 = 4, spines = w2*w3 = 2
  CHECK(e.switches == 6 + 4 + 2);
  CHECK(e.links == 24 + 6 * 2 + 4 * 1);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));

  const Node& leaf = f.node(named(f, "leaf-0"));
  CHECK(unsigned{leaf.num_ports} == 6);  // radix 0: the most any level needs (leaf 4+2)
  for (unsigned port = 1; port <= 4; ++port) CHECK_FALSE(f.node(leaf.port(static_cast<uint8_t>(port)).remote_node).is_switch());
  for (unsigned port = 5; port <= 6; ++port) CHECK(f.node(leaf.port(static_cast<uint8_t>(port)).remote_node).name.starts_with("agg-"));
  // Each leaf reaches both spines: the slimmed tree still has full reachability.
  std::set<NodeIndex> spines{named(f, "spine-0"), named(f, "spine-1")};
  for (uint32_t i = 0; i < 6; ++i) CHECK(tops_reached_going_up(f, named(f, fmt::format("leaf-{}", i))) == spines);
  for (uint32_t i = 0; i < 2; ++i) CHECK(cabled_ports(f.node(named(f, fmt::format("spine-{}", i)))) == 2);
  for (uint32_t i = 0; i < 4; ++i) {
    const Node& agg = f.node(named(f, fmt::format("agg-{}", i)));
    CHECK(cabled_ports(agg) == 3 + 1);
    CHECK(switch_neighbours(f, named(f, fmt::format("agg-{}", i))).size() == 4);
  }
}

TEST_CASE("xgft with two ports per host cables each host to two leaves", "[topogen][fat_tree][xgft]") {
  XgftParams p;
  p.down = {4, 4};
  p.up = {2, 2};
  const Fabric f = value_of(xgft(p));
  check_counts(f, value_of(estimate(p)));
  check_wiring_and_identities(f);
  for (const Node& n : f.nodes()) {
    if (n.is_switch()) continue;
    CHECK(unsigned{n.num_ports} == 2);
    CHECK(n.port(1).remote_node != n.port(2).remote_node);
  }
}

TEST_CASE("full 3-level tree of 36-port switches", "[topogen][fat_tree][xgft]") {
  XgftParams p;
  p.down = {18, 18, 36};
  p.up = {1, 18, 18};
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.cas == 11664);
  CHECK(e.switches == 648 + 648 + 324);
  const Fabric f = value_of(xgft(p));
  check_counts(f, e);
  for (const Node& n : f.nodes()) {
    if (n.is_switch()) CHECK(cabled_ports(n) == 36);
  }
}

TEST_CASE("a 48k-endpoint 3-level fat tree builds", "[topogen][fat_tree][xgft][scale]") {
  XgftParams p;
  p.down = {32, 32, 48};
  p.up = {1, 32, 32};
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.cas == 48 * 1024);
  CHECK(e.switches == 1536 + 1536 + 1024);
  CHECK(e.links == 3 * 48 * 1024);
  const Fabric f = value_of(xgft(p));
  check_counts(f, e);
  CHECK(connected(f));
  const Node& spine = f.node(named(f, "spine-1023"));
  CHECK(unsigned{spine.num_ports} == 64);
  CHECK(cabled_ports(spine) == 48);
}

TEST_CASE("fat tree parameter errors", "[topogen][fat_tree][errors]") {
  CHECK_THAT(error_of(kary_ntree({1, 3, {}})), Catch::Contains("k"));
  CHECK_THAT(error_of(kary_ntree({4, 0, {}})), Catch::Contains("n"));
  CHECK_THAT(error_of(kary_ntree({200, 2, {}})), Catch::Contains("ports"));
  CHECK_THAT(error_of(kary_ntree({64, 5, {}})), Catch::Contains("limit"));
  XgftParams p;
  CHECK_THAT(error_of(xgft(p)), Catch::Contains("at least one level"));
  p.down = {4, 4};
  p.up = {1};
  CHECK_THAT(error_of(xgft(p)), Catch::Contains("as many up counts"));
  p.up = {1, 0};
  CHECK_THAT(error_of(xgft(p)), Catch::Contains("up[1]"));
  p.up = {1, 4};
  p.radix = 6;
  CHECK_THAT(error_of(xgft(p)), Catch::Contains("radix 6"));
}
