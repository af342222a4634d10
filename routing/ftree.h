// Fat-tree routing ("ftree"): for k-ary n-trees and (slimmed) extended
// generalized fat trees, including two-level leaf/spine fabrics, it routes
// every LID up, then down, which keeps the fabric deadlock-free, and spreads
// the destinations evenly over the up-links of every level.
//
// The tree is recognised from the cables alone: the leaves are the switches
// with CAs, every other switch's level is its distance from the nearest leaf,
// and every switch-to-switch cable must join two adjacent levels. A fabric
// that is not such a tree (a torus, a mesh, a cable inside a level, CAs off a
// non-leaf switch, no CAs at all) is refused with the reason.
//
// Routing, in the spirit of Zahavi's d-mod-k and OpenSM's ftree, extended to
// LMC > 0 and failed cables:
//  - Every LID gets a chain: the switch it hangs off, then one switch per
//    level up to a top switch, each step on the least loaded up-link, LIDs
//    taken in leaf order, so consecutive destinations climb on consecutive
//    up-links at every level. The chain's down-links carry the LID down.
//  - Every switch above the LID's switch (it can reach it going down) sends
//    it down that way; every other switch sends it up: toward the chain's
//    top where the top reaches it going down, so all routes to a LID meet
//    on its chain, else (no traffic comes this way) on the up-link the chain
//    took at that level. Parallel cables take turns the way the chain's did.
//  - The 2^LMC LIDs of one port are consecutive destinations: they climb on
//    consecutive up-links, and prefer switches and top switches the port's
//    other LIDs did not take, so they reach it through distinct top
//    switches where the tree has them, and balance counts every LID.
//  - Failed cables: a switch that can still climb to a switch above the
//    LID's switch does; ftree refuses the fabric when the CAs of two leaves
//    have no up/down path between them.
//  - Some switch pairs have no up/down path even in an intact tree (a top
//    switch and a switch it is not above). Such a switch routes toward one
//    hub leaf as it would to the hub's own LID, and the packet climbs from
//    the first switch on the way with an up/down path: the hub or a switch
//    above it. Only packets to or from switches' own LIDs take such routes;
//    with every turn from down to up on one leaf's way up, they close no
//    cycle of channel dependencies (see fill_fixed in ftree.cpp).
//
// Cost: per switch, one pass over its cables and per LID one chain; then
// one pass per switch over the LIDs to fill its table, most of it plain
// lookups. About 1 s for 45k hosts on 3840 switches (Release build); the
// tables are 188 MB, and ftree's own state peaks at about 70 MB more (two
// bytes per switch and home switch, twice while it is turned around).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "routing/engine.h"
#include "routing/graph.h"

namespace ibsm::routing {

inline constexpr std::string_view kFatTreeName = "ftree";

// The levels of a recognised fat tree.
struct FatTreeLevels {
  static constexpr uint32_t kNoLevel = UINT32_MAX;
  // By SwitchId: 0 for the leaves (the switches with CAs), else the distance
  // in cables from the nearest leaf; kNoLevel for a switch that no leaf
  // reaches (nothing to route through it).
  std::vector<uint32_t> level;
  uint32_t levels = 0;  // highest level + 1
  uint32_t leaves = 0;
};

// Ranks the switches of `graph`'s fabric, or says why it is no fat tree.
Result<FatTreeLevels> rank_fat_tree(const RoutingGraph& graph);

class FatTreeEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return kFatTreeName; }
  Result<UnicastTables> compute(const RoutingInput& input) override;
  // The top level: a group's packets climb to one top switch and descend,
  // the way every unicast route does (none where the fabric is no fat tree).
  std::vector<SwitchId> multicast_roots(const RoutingInput& input) const override;
};

}  // namespace ibsm::routing
