// Discovery over SimFabric: the discovered fabric must be the cabled one,
// whatever the shape, the starting point and the faults on the way.
#include "sm/discovery/discovery.h"

#include <catch2/catch.hpp>

#include "mad/sim/sim_fabric.h"
#include "sm/fabric/compare.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

using namespace ibsm;

namespace {

struct Run {
  DiscoveryResult result;
  uint64_t sent = 0;
  size_t most_queued = 0;
};

Fabric must(Result<Fabric> f) {
  REQUIRE(f.ok());
  return std::move(*f);
}

NodeIndex named(const Fabric& f, const char* name) {
  auto n = f.find_by_name(name);
  REQUIRE(n);
  return *n;
}

// Discovers `topology` from port `port` of node `at`, with optional faults applied first.
template <typename Faults>
Run discover_from(const Fabric& topology, NodeIndex at, uint8_t port, DispatcherOptions opts, Faults&& faults) {
  SimFabric sim(topology);
  faults(sim);
  MadDispatcher d(sim.attach(at, port), sim.clock(), opts);
  Run r;
  r.result = discover_fabric(d);
  r.sent = d.stats().sent;
  r.most_queued = d.stats().most_queued;
  return r;
}
Run discover_from(const Fabric& topology, NodeIndex at, uint8_t port, DispatcherOptions opts = {}) {
  return discover_from(topology, at, port, opts, [](SimFabric&) {});
}

void require_same(const Fabric& expected, const Fabric& got) {
  std::string why;
  INFO(why);
  bool same = same_topology(expected, got, &why);
  INFO(why);
  REQUIRE(same);
}

}  // namespace

TEST_CASE("discovery finds every node, port and link of generated fabrics", "[discovery]") {
  std::vector<std::pair<const char*, Fabric>> fabrics;
  fabrics.emplace_back("leaf-spine", must(topogen::leaf_spine({.leaves = 5, .spines = 3, .hosts_per_leaf = 4, .links_per_pair = 2})));
  fabrics.emplace_back("fat-tree", must(topogen::kary_ntree({.k = 4, .n = 3})));
  fabrics.emplace_back("torus", must(topogen::mesh({.dims = {4, 3, 2}, .torus = true, .hosts_per_switch = 2})));
  fabrics.emplace_back("hypercube", must(topogen::hypercube({.dimension = 4, .hosts_per_switch = 1})));
  fabrics.emplace_back("dragonfly", must(topogen::dragonfly({.a = 4, .p = 2, .h = 2, .g = 5})));
  fabrics.emplace_back("random", must(topogen::random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 9})));
  fabrics.emplace_back("back-to-back", must(topogen::back_to_back({})));
  for (auto& [name, topology] : fabrics) {
    SECTION(name) {
      auto r = discover_from(topology, named(topology, "host-0"), 1);
      CHECK(r.result.problems.empty());
      require_same(topology, r.result.fabric);
      REQUIRE(r.result.local_node.valid());
      CHECK(r.result.fabric.node(r.result.local_node).name.empty());  // names are not on the wire
      CHECK(r.result.fabric.node(r.result.local_node).description == "host-0");
      CHECK(r.result.smps_timed_out == 0);
    }
  }
}

TEST_CASE("discovery started at a switch's management port finds the same fabric", "[discovery]") {
  Fabric topology = must(topogen::kary_ntree({.k = 4, .n = 2}));
  auto r = discover_from(topology, NodeIndex{0}, 0);
  REQUIRE(topology.node(NodeIndex{0}).is_switch());
  require_same(topology, r.result.fabric);
  CHECK(r.result.local_port == 0);
}

TEST_CASE("every node is reached on a valid DR path from the local port", "[discovery]") {
  Fabric topology = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2}));
  auto r = discover_from(topology, named(topology, "host-0"), 1);
  const Fabric& f = r.result.fabric;
  REQUIRE(r.result.paths.size() == f.node_count());
  // Follow each path through the discovered links: it must end at its node.
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const DrPath& path = r.result.paths[i];
    NodeIndex at = r.result.local_node;
    for (int hop = 1; hop <= path.hops(); ++hop) {
      const Port& p = f.node(at).port(path.port(hop));
      REQUIRE(p.connected());
      at = p.remote_node;
    }
    CHECK(at == NodeIndex{i});
  }
}

TEST_CASE("discovery with a window of one sends the same SMPs as with a wide window", "[discovery][dispatcher]") {
  Fabric topology = must(topogen::kary_ntree({.k = 4, .n = 3}));
  auto narrow = discover_from(topology, named(topology, "host-0"), 1, {.window = 1});
  auto wide = discover_from(topology, named(topology, "host-0"), 1, {.window = 64});
  require_same(narrow.result.fabric, wide.result.fabric);
  // The far side of a switch link found first is not probed again, which
  // depends on ordering; the counts stay within a few percent.
  CHECK(narrow.result.smps_sent <= wide.result.smps_sent);
  CHECK(wide.result.smps_sent < narrow.result.smps_sent * 11 / 10);
}

// The walk asks for a whole breadth of the fabric at once; what the
// dispatcher cannot send yet waits in the walk's backlog, not as built MADs
// in the dispatcher's queue (at 49k LIDs some 100k of them, 92 MB).
TEST_CASE("discovery keeps at most 4096 Gets queued in the dispatcher, however wide the fabric", "[discovery][dispatcher]") {
  Fabric topology = must(topogen::kary_ntree({.k = 8, .n = 4}));
  auto r = discover_from(topology, named(topology, "host-0"), 1);
  require_same(topology, r.result.fabric);
  CHECK(r.most_queued <= 4096);
  CHECK(r.most_queued > 2048);  // the walk did run into the bound
}

TEST_CASE("discovery is deterministic over SimFabric", "[discovery]") {
  Fabric topology = must(topogen::dragonfly({.a = 4, .p = 2, .h = 2, .g = 5}));
  auto a = discover_from(topology, named(topology, "host-3"), 1);
  auto b = discover_from(topology, named(topology, "host-3"), 1);
  CHECK(a.result.smps_sent == b.result.smps_sent);
  require_same(a.result.fabric, b.result.fabric);
}

TEST_CASE("an unresponsive switch is reported and the rest is discovered", "[discovery][faults]") {
  Fabric topology = must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 3}));
  NodeIndex dead = named(topology, "leaf-3");
  auto r = discover_from(topology, named(topology, "host-0"), 1, {.window = 8, .timeout = 1000, .retries = 1},
                         [&](SimFabric& sim) { sim.set_unresponsive(dead); });
  const Fabric& f = r.result.fabric;
  CHECK(f.node_count() == topology.node_count() - 4);  // leaf-3 and its three hosts
  CHECK_FALSE(f.find_by_node_guid(topology.node(dead).node_guid));
  REQUIRE(r.result.problems.size() == 2);  // one way in through each spine
  for (const auto& p : r.result.problems) {
    CHECK(p.what.find("no answer to NodeInfo") != std::string::npos);
    auto spine = f.find_by_node_guid(p.via_node);
    REQUIRE(spine);
    CHECK(f.node(*spine).description.rfind("spine-", 0) == 0);
    CHECK(p.path.hops() == 3);
  }
}

TEST_CASE("lossy switches cost retries, not nodes", "[discovery][faults]") {
  Fabric topology = must(topogen::kary_ntree({.k = 4, .n = 3}));
  auto clean = discover_from(topology, named(topology, "host-0"), 1);
  auto lossy = discover_from(topology, named(topology, "host-0"), 1, {.window = 16, .timeout = 1000, .retries = 8},
                             [](SimFabric& sim) { sim.set_drop_rate_all(0.2, 42); });
  require_same(topology, lossy.result.fabric);
  CHECK(lossy.result.problems.empty());
  CHECK(lossy.sent > clean.sent);
}

TEST_CASE("failed links are simply not there", "[discovery][faults]") {
  Fabric topology = must(topogen::kary_ntree({.k = 4, .n = 3}));
  auto failed = topogen::fail_links(topology, {.count = 5, .seed = 2});
  REQUIRE(failed.ok());
  auto r = discover_from(topology, named(topology, "host-0"), 1);
  require_same(topology, r.result.fabric);
}

TEST_CASE("a cable pulled in the simulator is a port that is down", "[discovery][faults]") {
  Fabric topology = must(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 2}));
  NodeIndex leaf = named(topology, "leaf-1");
  auto r = discover_from(topology, named(topology, "host-0"), 1, {},
                         [&](SimFabric& sim) { REQUIRE(sim.set_link(PortRef{leaf, 1}, false).ok()); });
  auto host = r.result.fabric.find_by_node_guid(topology.node(named(topology, "host-2")).node_guid);
  CHECK_FALSE(host);  // host-2 hangs off leaf-1 port 1
  CHECK(r.result.fabric.node_count() == topology.node_count() - 1);
  CHECK(r.result.problems.empty());  // a down port is not a problem, just no link
}
