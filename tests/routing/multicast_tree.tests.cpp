// The default multicast trees: rooted at central switches (the top of a fat
// tree), independent of the members' order, a join only adds its branch and
// a leave only takes it away; the checker agrees on every group.
#include "routing/multicast_tree.h"

#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/ftree.h"
#include "routing/multicast_check.h"
#include "routing/updn.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

MulticastTables tables_of(const Fabric& f, Lid mlid, const MulticastTree& tree) {
  MulticastTables t(f.node_count());
  for (uint32_t n = 0; n < f.node_count(); ++n) t.set(NodeIndex{n}, mlid, tree.ports[n]);
  return t;
}

// The switches of a tree (those with ports in it).
size_t tree_switches(const MulticastTree& tree) {
  return static_cast<size_t>(std::count_if(tree.ports.begin(), tree.ports.end(), [](const PortMask& m) { return !m.empty(); }));
}

TEST_CASE("the central switches of a fat tree are its top level, of a torus every switch", "[routing][multicast]") {
  Fabric ft = must(topogen::kary_ntree({.k = 4, .n = 3}));
  testing::assign_lids(ft);
  const RoutingGraph g = must(RoutingGraph::build(ft));
  const FatTreeLevels levels = must(rank_fat_tree(g));
  std::vector<SwitchId> tops;
  for (SwitchId sw = 0; sw < g.switch_count(); ++sw)
    if (levels.level[sw] == levels.levels - 1) tops.push_back(sw);
  CHECK(central_switches(g) == tops);
  FatTreeEngine ftree;
  CHECK(ftree.multicast_roots(RoutingInput{g}) == tops);

  Fabric torus = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 1}));
  testing::assign_lids(torus);
  const RoutingGraph tg = must(RoutingGraph::build(torus));
  CHECK(central_switches(tg).size() == tg.switch_count());

  // A mesh (no wrap): the middle switches.
  Fabric mesh = must(topogen::mesh({.dims = {3, 3}, .torus = false, .hosts_per_switch = 1}));
  testing::assign_lids(mesh);
  const RoutingGraph mg = must(RoutingGraph::build(mesh));
  const std::vector<SwitchId> centre = central_switches(mg);
  REQUIRE(centre.size() == 1);
  CHECK(mesh.node(mg.node_of(centre[0])).name == "sw-1-1");
}

TEST_CASE("MLIDs take the roots in turn", "[routing][multicast]") {
  Fabric ft = must(topogen::leaf_spine({.leaves = 4, .spines = 3, .hosts_per_leaf = 2}));
  testing::assign_lids(ft);
  const RoutingGraph g = must(RoutingGraph::build(ft));
  MulticastTreeBuilder b(g);
  REQUIRE(b.roots().size() == 3);
  CHECK(b.root_of(Lid{0xC000}) == b.roots()[0]);
  CHECK(b.root_of(Lid{0xC001}) == b.roots()[1]);
  CHECK(b.root_of(Lid{0xC003}) == b.roots()[0]);
  for (SwitchId r : b.roots()) CHECK(ft.node(g.node_of(r)).name.find("spine") != std::string::npos);
}

TEST_CASE("a tree does not depend on the members' order, and a join adds only its branch",
          "[routing][multicast]") {
  struct Case {
    const char* name;
    Fabric fabric;
  };
  std::vector<Case> cases;
  cases.push_back({"fat tree", must(topogen::kary_ntree({.k = 4, .n = 3}))});
  cases.push_back({"torus", must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}))});
  cases.push_back({"leaf spine, parallel cables",
                   must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}))});
  for (Case& c : cases) {
    SECTION(c.name) {
      Fabric& f = c.fabric;
      testing::assign_lids(f);
      const RoutingGraph g = must(RoutingGraph::build(f));
      MulticastTreeBuilder b(g);
      std::vector<PortRef> hosts = testing::endpoint_ports(f);
      std::mt19937 prng(7);
      for (uint16_t mlid = 0xC000; mlid < 0xC008; ++mlid) {
        std::shuffle(hosts.begin(), hosts.end(), prng);
        std::vector<PortRef> members(hosts.begin(), hosts.begin() + static_cast<std::ptrdiff_t>(hosts.size() / 3));
        const MulticastTree tree = must(b.tree(Lid{mlid}, members));
        std::vector<PortRef> reversed(members.rbegin(), members.rend());
        CHECK(must(b.tree(Lid{mlid}, reversed)).ports == tree.ports);

        const std::vector<MulticastGroupMembers> group{{Lid{mlid}, members}};
        const MulticastCheck check = check_multicast(f, tables_of(f, Lid{mlid}, tree), group);
        INFO(check.to_string() << (check.problems.empty() ? "" : "\n" + check.problems[0]));
        CHECK(check.ok());
        CHECK(check.floods == members.size());

        // One more member: no switch loses a port, and the switches that
        // change are at most the new member's path to the root.
        const PortRef joiner = hosts[hosts.size() - 1];
        std::vector<PortRef> joined = members;
        joined.push_back(joiner);
        const MulticastTree bigger = must(b.tree(Lid{mlid}, joined));
        size_t changed = 0;
        for (uint32_t n = 0; n < f.node_count(); ++n) {
          CHECK((tree.ports[n] & bigger.ports[n]) == tree.ports[n]);
          changed += tree.ports[n] != bigger.ports[n];
        }
        CHECK(changed <= tree_switches(bigger) - tree_switches(tree) + 1);
        CHECK(check_multicast(f, tables_of(f, Lid{mlid}, bigger), std::vector<MulticastGroupMembers>{{Lid{mlid}, joined}})
                  .ok());
      }
    }
  }
}

TEST_CASE("a group on one leaf switch stays on it (the stem is cut)", "[routing][multicast]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3}));
  testing::assign_lids(f);
  const RoutingGraph g = must(RoutingGraph::build(f));
  MulticastTreeBuilder b(g);
  const std::vector<PortRef> hosts = testing::endpoint_ports(f);
  // Two hosts of the first leaf.
  const NodeIndex leaf = f.node(hosts[0].node).port(hosts[0].port).remote_node;
  std::vector<PortRef> members;
  for (const PortRef& h : hosts)
    if (f.node(h.node).port(h.port).remote_node == leaf && members.size() < 2) members.push_back(h);
  REQUIRE(members.size() == 2);
  const MulticastTree tree = must(b.tree(Lid{0xC000}, members));
  CHECK(tree_switches(tree) == 1);
  CHECK(tree.ports[leaf.value].count() == 2);
}

TEST_CASE("the multicast checker finds loops, missed members and leaks", "[routing][multicast][check]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = true, .hosts_per_switch = 1}));  // a ring of 3
  testing::assign_lids(f);
  const RoutingGraph g = must(RoutingGraph::build(f));
  const std::vector<PortRef> hosts = testing::endpoint_ports(f);
  const std::vector<MulticastGroupMembers> group{{Lid{0xC000}, hosts}};
  MulticastTreeBuilder b(g);
  MulticastTables good = tables_of(f, Lid{0xC000}, must(b.tree(Lid{0xC000}, hosts)));
  REQUIRE(check_multicast(f, good, group).ok());
  CHECK(check_multicast(f, good, group).floods == hosts.size());
  CHECK(check_multicast(f, good, group, {.max_sources = 1}).floods == 1);

  // Every ring port in every entry: a loop.
  MulticastTables loop(f.node_count());
  for (SwitchId sw = 0; sw < g.switch_count(); ++sw) {
    const NodeIndex n = g.node_of(sw);
    PortMask m;
    for (uint8_t p = 1; p <= f.node(n).num_ports; ++p)
      if (f.node(n).port(p).connected()) m.set(p);
    loop.set(n, Lid{0xC000}, m);
  }
  const MulticastCheck looped = check_multicast(f, loop, group);
  CHECK_FALSE(looped.ok());
  CHECK(looped.duplicates > 0);

  // A member's port taken out: it is missed from everyone else.
  MulticastTables missing = good;
  const Port& attach = f.node(hosts[0].node).port(hosts[0].port);
  PortMask m = missing.ports(attach.remote_node, Lid{0xC000});
  m.reset(attach.remote_port);
  missing.set(attach.remote_node, Lid{0xC000}, m);
  const MulticastCheck missed = check_multicast(f, missing, group);
  CHECK(missed.missed == hosts.size() - 1);

  // A non-member gets copies: a leak.
  const std::vector<MulticastGroupMembers> fewer{{Lid{0xC000}, {hosts.begin() + 1, hosts.end()}}};
  CHECK(check_multicast(f, good, fewer).leaks > 0);
}

}  // namespace
}  // namespace ibsm::routing
