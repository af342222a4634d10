// The routing graph: one compressed-sparse-row graph of a fabric snapshot's
// switches and their usable switch-to-switch cables, plus where every LID
// hangs off. Built once per snapshot and shared by every engine (DESIGN.md:
// no engine builds its own private copy of the fabric).
//
// Vertices are the snapshot's switches, numbered densely in node GUID order
// (not node order: see build()).
// Every usable cable between two switches gives two directed edges, one out
// of each end; a switch's out-edges are in port order, so parallel cables
// stay separate out-ports and an edge index names one (switch, port).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/range/iterator_range.hpp>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/fabric.h"

namespace ibsm::routing {

// A port carries traffic once its link is up and the SM has seen it: INIT,
// ARMED and ACTIVE. The sweep routes before it activates ports, so INIT
// counts; DOWN does not.
bool port_usable(const Port& port);
// The cable at `end` carries traffic: it exists and both of its ports are usable.
bool cable_usable(const Fabric& fabric, PortRef end);

struct SwitchVertex {
  NodeIndex node;
};
struct SwitchEdge {
  uint8_t port = 0;         // out-port on the source switch
  uint8_t remote_port = 0;  // the port it arrives on at the target switch
};
using SwitchGraph = boost::compressed_sparse_row_graph<boost::directedS, SwitchVertex, SwitchEdge,
                                                       boost::no_property, uint32_t, uint32_t>;
// A vertex of SwitchGraph: a switch numbered densely in node GUID order.
using SwitchId = uint32_t;
inline constexpr SwitchId kNoSwitch = UINT32_MAX;
// An index (of a channel, group, vertex, ...) that is absent.
inline constexpr uint32_t kNoIndex = UINT32_MAX;
// A hop count over the switch graph that no path reaches.
inline constexpr uint32_t kUnreachable = UINT32_MAX;

// A port that owns LIDs and is reached through a switch: a CA or router port
// cabled to a switch (its LIDs leave the switch through `port`), or a
// switch's port 0 (its own LIDs, `port` 0). Engines route one destination
// per entry, all 2^lmc LIDs of it.
struct Destination {
  PortRef owner;
  Lid base;
  uint8_t lmc = 0;
  SwitchId sw = kNoSwitch;  // the switch the LIDs hang off
  uint8_t port = 0;         // that switch's port toward the owner (0: the switch itself)
  uint32_t lid_count() const { return 1u << lmc; }
};

class RoutingGraph {
 public:
  // Builds the graph of `fabric`, which must outlive it. Fails when two ports
  // claim the same LID or a LID range leaves the unicast space.
  static Result<RoutingGraph> build(const Fabric& fabric);

  const Fabric& fabric() const { return *fabric_; }
  const SwitchGraph& graph() const { return graph_; }

  uint32_t switch_count() const { return static_cast<uint32_t>(switch_nodes_.size()); }
  // Directed switch-to-switch edges (two per usable cable).
  uint32_t edge_count() const { return static_cast<uint32_t>(boost::num_edges(graph_)); }
  NodeIndex node_of(SwitchId sw) const { return switch_nodes_[sw]; }

  // The same edges as flat arrays, for inner loops: switch sw's out-edges
  // are the edge indices [edge_begin(sw), edge_begin(sw + 1)), in port order
  // (boost::edge_index gives the same numbers).
  uint32_t edge_begin(SwitchId sw) const { return edge_begin_[sw]; }
  SwitchId edge_target(uint32_t edge) const { return edge_target_[edge]; }
  uint8_t edge_port(uint32_t edge) const { return edge_port_[edge]; }
  // kNoSwitch for a node that is not a switch.
  SwitchId switch_of(NodeIndex node) const { return switch_of_node_[node.value]; }

  // Every destination, grouped by the switch it hangs off (switches in id
  // order), within a switch the switch itself first, then by port.
  std::span<const Destination> destinations() const { return destinations_; }
  std::span<const Destination> destinations_of(SwitchId sw) const {
    return std::span(destinations_).subspan(dest_begin_[sw], dest_begin_[sw + 1] - dest_begin_[sw]);
  }

  // Highest LID any port owns (0 when none has one): LFTs span 0..max_lid().
  uint16_t max_lid() const { return max_lid_; }
  // The port that owns `lid` (an invalid node when nobody does), whether or
  // not it is reachable through a switch.
  PortRef owner_of(Lid lid) const;

 private:
  RoutingGraph() = default;

  const Fabric* fabric_ = nullptr;
  SwitchGraph graph_;
  std::vector<uint32_t> edge_begin_;   // switch_count() + 1 offsets
  std::vector<SwitchId> edge_target_;  // by edge index
  std::vector<uint8_t> edge_port_;     // by edge index
  std::vector<NodeIndex> switch_nodes_;
  std::vector<SwitchId> switch_of_node_;
  std::vector<Destination> destinations_;
  std::vector<uint32_t> dest_begin_;  // switch_count() + 1 offsets into destinations_
  std::vector<PortRef> owner_of_lid_;  // index: LID, 0..max_lid_
  uint16_t max_lid_ = 0;
};

}  // namespace ibsm::routing
