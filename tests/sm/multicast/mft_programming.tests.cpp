// Multicast over SimFabric: the trees read back from the switches' MFTs
// reach every member once with no loop; a second programming sends nothing;
// a takeover reads and sends nothing on an unchanged fabric; a join or leave
// writes only the blocks of the switches on the member's branch; a cut link
// rebuilds the trees with every intermediate state loop-free.
#include "sm/multicast/mft_programming.h"

#include <fstream>
#include <set>

#include <catch2/catch.hpp>

#include "sm/fabric/netfile_reader.h"
#include "sm/topogen/generators.h"
#include "tests/sm/multicast/multicast_harness.h"

using namespace ibsm;
using test::must;
using test::MulticastHarness;

namespace {

Fabric load_netfile(const std::string& name) {
  std::ifstream in(std::string(IBSM_TEST_DATA) + "/netfiles/" + name);
  REQUIRE(in.good());
  return must(read_netfile(in, name));
}

// (switch, block, position) triples whose entries differ between two states.
struct BlockDiff {
  size_t blocks = 0;
  std::set<uint32_t> switches;
};
BlockDiff diff(const Fabric& f, const MulticastTables& a, const MulticastTables& b) {
  BlockDiff d;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    std::set<std::pair<uint32_t, unsigned>> blocks;
    std::set<uint16_t> mlids;
    for (const auto& e : a.of(NodeIndex{n})) mlids.insert(e.first);
    for (const auto& e : b.of(NodeIndex{n})) mlids.insert(e.first);
    for (uint16_t mlid : mlids) {
      const PortMask x = a.ports(NodeIndex{n}, Lid{mlid}), y = b.ports(NodeIndex{n}, Lid{mlid});
      for (unsigned p = 0; p <= node.num_ports / 16u; ++p)
        if (x.position_bits(p) != y.position_bits(p)) blocks.insert({(mlid - 0xC000u) / 32, p});
    }
    d.blocks += blocks.size();
    if (!blocks.empty()) d.switches.insert(n);
  }
  return d;
}

void require_ok(const routing::MulticastCheck& c) {
  INFO(c.to_string() << (c.problems.empty() ? "" : "\n" + c.problems[0]));
  REQUIRE(c.ok());
}

}  // namespace

TEST_CASE("the switches' mfts carry every group to every member once, and a second programming sends nothing",
          "[multicast][mft]") {
  struct Case {
    const char* name;
    Fabric fabric;
    const char* engine;
  };
  std::vector<Case> cases;
  cases.push_back({"netfile mixed.net", load_netfile("mixed.net"), "minhop"});
  cases.push_back({"fat tree, ftree", must(topogen::kary_ntree({.k = 4, .n = 3})), "ftree"});
  cases.push_back({"torus, updn", must(topogen::mesh({.dims = {4, 3}, .torus = true, .hosts_per_switch = 2})), "updn"});
  // 36-port switches: MFT positions 0, 1 and 2 (ports 32-35).
  cases.push_back({"36-port leaf spine",
                   must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 34, .radix = 36})), "minhop"});
  for (Case& c : cases) {
    SECTION(c.name) {
      MulticastHarness h(std::move(c.fabric), c.engine);
      // LIDs first: the groups are of the snapshot's ports. Switches no SM
      // has programmed (LinearFDBTop 0) hold no MFT entry: nothing to read.
      CHECK(h.heavy({}).programming.blocks_read == 0);
      const auto groups = h.random_groups(40, 12, 3);
      const MulticastUpdate first = h.heavy(groups);
      CHECK(first.tree_error.empty());
      CHECK(first.check.ok());
      CHECK(first.check.groups == groups.size());
      CHECK(first.programming.problems.empty());
      CHECK(first.programming.blocks_sent > 0);
      CHECK(first.programming.removal_blocks_sent == 0);  // the switches held nothing
      require_ok(h.check_held(h.groups()));
      CHECK(h.held() == h.computed());

      const MulticastUpdate again = h.heavy(groups);
      CHECK(again.programming.blocks_sent == 0);
      CHECK(again.programming.blocks_read == 0);
      CHECK(h.held() == h.computed());
    }
  }
}

TEST_CASE("ports above 31 land in position 2 of a 36-port switch", "[multicast][mft]") {
  MulticastHarness h(must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 34, .radix = 36})));
  h.heavy({});
  // Every host: every leaf port 1..34 is in the tree.
  const std::vector<MulticastGroupMembers> all{{Lid{0xC000}, h.hosts()}};
  REQUIRE(all[0].members.size() == 68);
  h.heavy(all);
  require_ok(h.check_held(all));
  size_t high = 0;
  const MulticastTables held = h.held();
  for (uint32_t n = 0; n < h.subnet().fabric.node_count(); ++n)
    for (const auto& [mlid, ports] : held.of(NodeIndex{n})) high += ports.position_bits(2) != 0;
  CHECK(high == 2);  // ports 32-34 of both leaves
}

TEST_CASE("a takeover on an unchanged fabric reads the mfts and sets nothing", "[multicast][mft][takeover]") {
  MulticastHarness h(must(topogen::kary_ntree({.k = 4, .n = 2})), "ftree");
  h.heavy({});
  const auto groups = h.random_groups(50, 8, 11);
  h.heavy(groups);
  require_ok(h.check_held(groups));

  h.state() = SweepState{};  // a new SM: no memory of any switch
  const MulticastUpdate takeover = h.heavy(groups);
  CHECK(takeover.programming.blocks_read > 0);
  CHECK(takeover.programming.blocks_sent == 0);
  CHECK(takeover.programming.problems.empty());
}

TEST_CASE("a join or a leave writes only the blocks of its branch", "[multicast][mft][join]") {
  MulticastHarness h(must(topogen::kary_ntree({.k = 4, .n = 3})), "ftree");
  h.heavy({});
  auto groups = h.random_groups(64, 6, 5);
  h.heavy(groups);
  const Fabric& f = h.subnet().fabric;

  // A join: a host not in group 7.
  MulticastGroupMembers g = groups[7];
  for (const PortRef& p : h.hosts()) {
    if (std::find(g.members.begin(), g.members.end(), p) == g.members.end()) {
      g.members.push_back(p);
      break;
    }
  }
  const MulticastTables before = h.computed();
  const MulticastUpdate join = h.change(std::vector<MulticastGroupMembers>{g});
  const BlockDiff expected = diff(f, before, h.computed());
  CHECK(expected.blocks > 0);
  CHECK(join.programming.blocks_sent == expected.blocks);
  CHECK(join.programming.switches_changed == expected.switches.size());
  CHECK(join.programming.removal_blocks_sent == 0);
  CHECK(join.programming.blocks_read == 0);
  groups[7] = g;
  require_ok(h.check_held(groups));

  // A leave: the first member of group 3 goes; only removals.
  MulticastGroupMembers leaving = groups[3];
  leaving.members.erase(leaving.members.begin());
  const MulticastTables before_leave = h.computed();
  const MulticastUpdate leave = h.change(std::vector<MulticastGroupMembers>{leaving});
  const BlockDiff expected_leave = diff(f, before_leave, h.computed());
  CHECK(leave.programming.blocks_sent == expected_leave.blocks);
  CHECK(leave.programming.removal_blocks_sent == expected_leave.blocks);
  groups[3] = leaving;
  require_ok(h.check_held(groups));

  // The group is deleted: its entries leave every switch.
  const MulticastUpdate gone = h.change(std::vector<MulticastGroupMembers>{{groups[3].mlid, {}}});
  CHECK(gone.programming.blocks_sent > 0);
  for (uint32_t n = 0; n < f.node_count(); ++n) CHECK(h.held().ports(NodeIndex{n}, groups[3].mlid).empty());
  groups.erase(groups.begin() + 3);
  require_ok(h.check_held(groups));
  CHECK(h.held() == h.computed());
}

TEST_CASE("a cut link rebuilds the trees with every intermediate state loop-free", "[multicast][mft][reroute]") {
  // One SMP in flight at a time: each answered Set shows one more state.
  MulticastHarness h(must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 1})), "minhop",
                     DispatcherOptions{.window = 1});
  h.heavy({});
  const auto groups = h.random_groups(32, 10, 9);
  h.heavy(groups);
  require_ok(h.check_held(groups));
  const MulticastTables old_tables = h.held();

  // Cut two cables between switches (the SM's own stays).
  const Fabric& topo = h.sim().topology();
  size_t cut = 0;
  for (const Link& l : topo.links()) {
    if (!topo.node(l.a.node).is_switch() || !topo.node(l.b.node).is_switch()) continue;
    if (cut++ % 7 != 3) continue;
    REQUIRE(h.sim().set_link(l.a, false).ok());
    if (cut > 14) break;
  }

  size_t states = 0, looped = 0;
  std::vector<std::string> first;
  MftProgramOptions watch;
  watch.after_block = [&] {
    ++states;
    const routing::MulticastCheck c = routing::check_multicast(h.subnet().fabric, h.held(), h.groups());
    if (c.duplicates != 0) {
      ++looped;
      if (first.empty()) first = c.problems;
    }
  };
  const MulticastUpdate rebuilt = h.heavy(groups, watch);
  INFO((first.empty() ? std::string() : first[0]));
  CHECK(states == rebuilt.programming.blocks_sent);
  CHECK(rebuilt.programming.removal_blocks_sent > 0);
  CHECK(looped == 0);
  require_ok(h.check_held(h.groups()));
}

TEST_CASE("switches with a MulticastFDBTop get it set, and only the blocks below it are read",
          "[multicast][mft][top]") {
  MulticastHarness h(must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3})), "minhop", {},
                     SimOptions{.multicast_fdb_top = true});
  const MulticastUpdate fresh = h.heavy({});
  CHECK(fresh.programming.blocks_read == 0);  // top 0xBFFF: nothing in use
  CHECK(fresh.programming.switch_info_sets == 0);

  const auto groups = h.random_groups(40, 5, 21);  // MLIDs 0xC000-0xC027: blocks 0 and 1
  const MulticastUpdate first = h.heavy(groups);
  CHECK(first.programming.switch_info_sets > 0);
  require_ok(h.check_held(h.groups()));
  CHECK(h.held() == h.computed());
  uint64_t below_top = 0;
  const Fabric& topo = h.sim().topology();
  for (uint32_t i = 0; i < topo.node_count(); ++i) {
    if (!topo.node(NodeIndex{i}).is_switch()) continue;
    const auto at = h.subnet().fabric.find_by_node_guid(topo.node(NodeIndex{i}).node_guid);
    REQUIRE(at);
    const auto& entries = h.computed().of(*at);
    const uint16_t top = h.sim().state().switch_of(i)->multicast_fdb_top;
    CHECK(top == (entries.empty() ? 0xBFFF : entries.rbegin()->first));
    if (top >= 0xC000) below_top += (top - 0xC000u) / 32 + 1;  // fewer than 16 ports: one position
  }

  h.state() = SweepState{};
  const MulticastUpdate takeover = h.heavy(groups);
  CHECK(takeover.programming.blocks_read == below_top);
  CHECK(takeover.programming.blocks_sent == 0);
  CHECK(takeover.programming.switch_info_sets == 0);

  // Every group gone: the tops go back to "none in use".
  std::vector<MulticastGroupMembers> none;
  for (const auto& g : groups) none.push_back({g.mlid, {}});
  h.change(none);
  for (uint32_t i = 0; i < topo.node_count(); ++i)
    if (topo.node(NodeIndex{i}).is_switch()) CHECK(h.sim().state().switch_of(i)->multicast_fdb_top == 0xBFFF);
}

TEST_CASE("a 2,000-endpoint fat tree with 1,000 groups", "[multicast][mft][large]") {
  // k-ary 3-tree, k = 13: 2197 hosts, 507 switches of 26 ports (2 positions).
  MulticastHarness h(must(topogen::kary_ntree({.k = 13, .n = 3})), "ftree");
  h.heavy({});
  const auto groups = h.random_groups(1000, 40, 17);
  const MulticastUpdate first = h.heavy(groups);
  CHECK(first.tree_error.empty());
  CHECK(first.programming.problems.empty());
  require_ok(h.check_held(groups));
  INFO(fmt::format("{} blocks read, {} sent, {} entries; {}", first.programming.blocks_read, first.programming.blocks_sent,
                   h.computed().entry_count(), h.check_held(h.groups()).to_string()));
  const MulticastUpdate again = h.heavy(groups);
  CHECK(again.programming.blocks_sent == 0);
}
