// The default multicast trees (IBA 18.2.4.3.3: a switch forwards a multicast
// packet to every port of the MLID's entry but the one it came in on, so the
// entries of a group must form a spanning tree over its members' switches).
//
// A group's tree must not depend on who joined first: a join or a leave then
// changes only the switches on that member's branch, and two SMs (or one SM
// before and after a takeover) compute the same trees from the same fabric,
// so an unchanged fabric needs no MFT block written. Hence:
//  - the root is fixed per snapshot and MLID: the MLIDs are spread round
//    robin over the fabric's central switches (those whose farthest
//    endpoint switch is nearest: the spines of a fat tree, every switch of a
//    torus). One root for every group would carry every group's traffic
//    through one switch; a root per MLID spreads it, and a root that
//    depends only on the fabric and the MLID never moves with membership;
//  - every switch has one parent toward each root, fixed too: among its
//    neighbours one hop nearer the root, the one with the lowest switch id
//    (GUID order), through the lowest port of that neighbour. The union of
//    the members' paths is then a subtree of one fixed shortest-path tree,
//    and a new member adds exactly its path up to where it meets the tree;
//  - the stem above the highest branching switch is cut (no switch forwards
//    to a part of the tree without members), so a group on one leaf switch
//    stays on that switch.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "routing/engine.h"
#include "routing/graph.h"

namespace ibsm::routing {

// The switches whose farthest switch with endpoints (CAs, routers) is
// nearest, in switch id order; every switch when none has endpoints. In a
// split fabric, only switches of the part with the most endpoint switches.
std::vector<SwitchId> central_switches(const RoutingGraph& graph);

// Shortest-path trees toward fixed roots, each built once per snapshot and
// root and kept for every group rooted there.
class MulticastTreeBuilder {
 public:
  // `roots`: the switches MLIDs are spread over; empty: central_switches().
  explicit MulticastTreeBuilder(const RoutingGraph& graph, std::vector<SwitchId> roots = {});

  const RoutingGraph& graph() const { return graph_; }
  std::span<const SwitchId> roots() const { return roots_; }
  // The root of a group: the MLIDs in turn over roots() (MLID 0xC000 the first).
  SwitchId root_of(Lid mlid) const;

  // The group's tree (see the file comment). Members that no usable cable
  // attaches to a switch, or that sit in another part of a split fabric,
  // are left out; a member that is no port of the fabric is an error.
  Result<MulticastTree> tree(Lid mlid, std::span<const PortRef> members) { return tree_from(root_of(mlid), members); }
  Result<MulticastTree> tree_from(SwitchId root, std::span<const PortRef> members);

 private:
  // By switch: its parent toward one root, its port to it and the parent's
  // port back (kNoSwitch: the root itself, or not connected to it).
  struct TowardRoot {
    std::vector<SwitchId> parent;
    std::vector<uint8_t> up_port;
    std::vector<uint8_t> down_port;
  };
  const TowardRoot& toward(SwitchId root);

  const RoutingGraph& graph_;
  std::vector<SwitchId> roots_;
  std::unordered_map<SwitchId, TowardRoot> trees_;
};

}  // namespace ibsm::routing
