// The channel dependency graph kept from a full check and updated after a
// route repair must give the verdict of the graph built afresh.
#include "routing/cdg_memory.h"

#include <map>
#include <memory>

#include <catch2/catch.hpp>

#include "routing/cdg.h"
#include "routing/graph.h"
#include "routing/route_repair.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

// A 4-ary n-tree with LIDs, and min-hop's tables for it.
struct Routed {
  Fabric fabric;
  SharedLfts lfts;
};
Routed minhop_tree(uint32_t n) {
  Routed r{must(topogen::kary_ntree({.k = 4, .n = n})), {}};
  assign_lids(r.fabric);
  r.lfts = testing::route_minhop(must(RoutingGraph::build(r.fabric))).lfts;
  return r;
}

std::shared_ptr<CdgMemory> kept_graph(const Fabric& f, const SharedLfts& lfts) {
  CdgReport r = must(check_channel_dependencies(f, lfts, {.keep_graph = true}));
  REQUIRE(r.acyclic());
  REQUIRE(r.memory);
  return r.memory;
}

// Every channel's dependencies, by (node GUID, port), as `m` holds them for
// the nodes of `f`.
std::map<std::pair<uint64_t, uint8_t>, PortMask> deps_by_port(const CdgMemory& m, const Fabric& f) {
  std::map<std::pair<uint64_t, uint8_t>, PortMask> out;
  for (const Node& n : f.nodes()) {
    if (!n.is_switch()) continue;
    const CdgMemory::NodePorts& at = m.nodes.at(n.node_guid.value);
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      if (m.target[at.base + p] != kNoIndex && !m.deps[at.base + p].empty()) {
        out[{n.node_guid.value, p}] = m.deps[at.base + p];
      }
    }
  }
  return out;
}

// Whether `kept` holds every dependency of `fresh`: the kept graph may keep
// dependencies no route makes any more (a superset), never miss one.
bool covers(const std::map<std::pair<uint64_t, uint8_t>, PortMask>& kept,
            const std::map<std::pair<uint64_t, uint8_t>, PortMask>& fresh) {
  for (const auto& [channel, deps] : fresh) {
    const auto it = kept.find(channel);
    if (it == kept.end() || !minus(deps, it->second).empty()) return false;
  }
  return true;
}

struct Repaired {
  Fabric now;
  SharedLfts lfts;
};

// min-hop's tables for `before`, repaired after `change` made `now`.
Repaired repair(const Fabric& before, const SharedLfts& given, Fabric now) {
  auto mended = repair_shortest_path_tables(must(RoutingGraph::build(before)), must(RoutingGraph::build(now)), given);
  REQUIRE(mended.has_value());
  return {std::move(now), std::move(mended->lfts)};
}

// A 4-ary 3-tree routed by min-hop with its graph kept, one cable pulled
// (`seed`), the tables repaired and the kept graph updated.
struct Pulled {
  Fabric before;
  std::shared_ptr<CdgMemory> memory;
  Repaired repaired;
  std::optional<CdgUpdate> update;
};
Pulled pull_and_update(uint64_t seed) {
  Pulled p;
  Routed tree = minhop_tree(3);
  p.before = std::move(tree.fabric);
  const SharedLfts given = std::move(tree.lfts);
  p.memory = kept_graph(p.before, given);
  Fabric pulled = p.before;
  must(topogen::fail_links(pulled, {.count = 1, .seed = seed}).status());
  p.repaired = repair(p.before, given, std::move(pulled));
  p.update = update_cdg_memory(*p.memory, p.repaired.now, given, p.repaired.lfts);
  REQUIRE(p.update.has_value());
  return p;
}

TEST_CASE("after a repair the kept graph gives the verdict of the graph built afresh, and holds its dependencies",
          "[routing][cdg][repair]") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    DYNAMIC_SECTION("cable pulled with seed " << seed) {
      const Pulled p = pull_and_update(seed);
      const Repaired& r = p.repaired;
      const std::shared_ptr<CdgMemory>& memory = p.memory;
      const std::optional<CdgUpdate>& u = p.update;
      const Fabric& before = p.before;
      const CdgReport fresh = must(check_channel_dependencies(r.now, r.lfts, {.keep_graph = true}));
      INFO(fresh.to_string());
      CHECK(u->changed_entries > 0);
      REQUIRE(u->acyclic == fresh.acyclic());
      if (fresh.acyclic()) {
        CHECK(covers(deps_by_port(*memory, r.now), deps_by_port(*fresh.memory, r.now)));
      } else {
        // The cycle reported is one the fresh graph has: every dependency real.
        REQUIRE_FALSE(u->cycle.empty());
        const CdgReport text = memory_report(memory, r.now, *u);
        CHECK_FALSE(text.acyclic());
        CHECK(text.cycle_text.find("vl 0: ") == 0);
      }

      // The cable put back: the repair of the repair is checked the same way.
      const Repaired back = repair(r.now, r.lfts, before);  // the kept graph updated again
      const std::optional<CdgUpdate> again = update_cdg_memory(*memory, back.now, r.lfts, back.lfts);
      REQUIRE(again.has_value());
      const CdgReport fresh_back = must(check_channel_dependencies(back.now, back.lfts, {.keep_graph = true}));
      CHECK(again->acyclic == fresh_back.acyclic());
      if (fresh_back.acyclic()) CHECK(covers(deps_by_port(*memory, back.now), deps_by_port(*fresh_back.memory, back.now)));
    }
  }
}

TEST_CASE("some cable pulled out of a 4-ary 3-tree gives min-hop's repaired tables a credit loop the kept graph finds",
          "[routing][cdg][repair]") {
  // Min-hop routes around a pulled cable down and up again: the turn that
  // up*/down* forbids. The test above covers both verdicts only if some
  // seed gives a cycle, and some none.
  int cycles = 0, acyclic = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    (pull_and_update(seed).update->acyclic ? acyclic : cycles) += 1;
  }
  CHECK(cycles > 0);
  CHECK(acyclic > 0);
}

TEST_CASE("a cycle made of stale dependencies is dropped, not reported", "[routing][cdg][repair]") {
  const auto [f, lfts] = minhop_tree(3);
  std::shared_ptr<CdgMemory> memory = kept_graph(f, lfts);
  const auto exact = deps_by_port(*memory, f);
  // Two switches' cable both ways, each depending on the other: a U-turn
  // no min-hop route takes.
  const Node* a = nullptr;
  uint8_t port = 0;
  for (const Node& n : f.nodes()) {
    if (!n.is_switch()) continue;
    for (uint8_t p = 1; p <= n.num_ports && a == nullptr; ++p) {
      if (f.node(n.port(p).remote_node).is_switch()) {
        a = &n;
        port = p;
      }
    }
    if (a != nullptr) break;
  }
  REQUIRE(a != nullptr);
  const Node& b = f.node(a->port(port).remote_node);
  const uint8_t back = a->port(port).remote_port;
  const uint32_t ab = memory->nodes.at(a->node_guid.value).base + port;
  const uint32_t ba = memory->nodes.at(b.node_guid.value).base + back;
  memory->deps[ab].set(back);  // a->b, then b->a
  memory->deps[ba].set(port);  // b->a, then a->b
  memory->ordered = false;     // as after an update that added them against the order

  const std::optional<CdgUpdate> u = update_cdg_memory(*memory, f, lfts, lfts);
  REQUIRE(u.has_value());
  CHECK(u->acyclic);
  CHECK(u->dropped == 2);
  CHECK(deps_by_port(*memory, f) == exact);
}

TEST_CASE("a node the kept graph does not know leaves it untouched and asks for the graph afresh",
          "[routing][cdg][repair]") {
  const auto [f, lfts] = minhop_tree(2);
  std::shared_ptr<CdgMemory> memory = kept_graph(f, lfts);
  const auto was = deps_by_port(*memory, f);
  const auto [other, other_lfts] = minhop_tree(3);  // GUIDs this memory never saw
  CHECK_FALSE(update_cdg_memory(*memory, other, other_lfts, other_lfts).has_value());
  CHECK(deps_by_port(*memory, f) == was);
}

TEST_CASE("no graph is kept where packets travel on several vls; one with a cycle is kept unordered",
          "[routing][cdg]") {
  const auto [f, lfts] = minhop_tree(3);
  CdgOptions by_lid{.destination_vl = [](Lid l) { return static_cast<uint8_t>(l.value % 2); }, .keep_graph = true};
  CHECK_FALSE(must(check_channel_dependencies(f, lfts, by_lid)).memory);
  CHECK_FALSE(must(check_channel_dependencies(f, lfts)).memory);  // not asked for

  Fabric ring = must(topogen::mesh({.dims = {6}, .torus = true}));
  assign_lids(ring);
  const SharedLfts ring_lfts = testing::route_minhop(must(RoutingGraph::build(ring))).lfts;
  const CdgReport r = must(check_channel_dependencies(ring, ring_lfts, {.keep_graph = true}));
  REQUIRE_FALSE(r.acyclic());
  REQUIRE(r.memory);
  CHECK_FALSE(r.memory->ordered);
  // Nothing changed: the update finds the cycle again, all of it real.
  const std::optional<CdgUpdate> u = update_cdg_memory(*r.memory, ring, ring_lfts, ring_lfts);
  REQUIRE(u.has_value());
  CHECK_FALSE(u->acyclic);
  CHECK(u->cycle.size() == r.cycle.size());
  CHECK(u->dropped == 0);
}

}  // namespace
}  // namespace ibsm::routing
