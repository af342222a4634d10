#include "routing/graph.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include <fmt/format.h>

namespace ibsm::routing {

bool port_usable(const Port& port) {
  return port.state == PortState::init || port.state == PortState::armed || port.state == PortState::active;
}

bool cable_usable(const Fabric& fabric, PortRef end) {
  const Port& here = fabric.node(end.node).port(end.port);
  if (!here.connected() || !port_usable(here)) return false;
  return port_usable(fabric.node(here.remote_node).port(here.remote_port));
}

namespace {

// The LID range a port owns: a switch's LIDs live on port 0, a CA's on each port.
struct OwnedLids {
  PortRef owner;
  uint32_t base = 0;
  uint32_t count = 0;
};

template <typename Visit>
void for_each_lid_owner(const Fabric& fabric, Visit&& visit) {
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const NodeIndex node{n};
    const Node& nd = fabric.node(node);
    const uint8_t first = nd.is_switch() ? 0 : 1;
    const uint8_t last = nd.is_switch() ? 0 : nd.num_ports;
    for (unsigned p = first; p <= last; ++p) {
      const Port& port = nd.port(static_cast<uint8_t>(p));
      if (port.base_lid.value == 0) continue;  // no LID assigned yet
      visit(OwnedLids{PortRef{node, static_cast<uint8_t>(p)}, port.base_lid.value, 1u << port.lmc});
    }
  }
}

std::string describe(const Fabric& fabric, PortRef ref) {
  return fmt::format("{} port {}", fabric.node(ref.node).node_guid, ref.port);
}

}  // namespace

Result<RoutingGraph> RoutingGraph::build(const Fabric& fabric) {
  RoutingGraph g;
  g.fabric_ = &fabric;

  // Switches in node GUID order: engines walk switches and destinations in
  // id order and break ties by it, so this makes the tables a function of
  // the fabric alone, not of the order discovery happened to find the nodes
  // in (which depends on where the SM sits and on reply timing). `ibsm
  // route` on a netfile and the daemon on the live fabric then agree.
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    if (fabric.node(NodeIndex{n}).is_switch()) g.switch_nodes_.push_back(NodeIndex{n});
  }
  std::sort(g.switch_nodes_.begin(), g.switch_nodes_.end(), [&](NodeIndex a, NodeIndex b) {
    return fabric.node(a).node_guid.value < fabric.node(b).node_guid.value;
  });
  g.switch_of_node_.assign(fabric.node_count(), kNoSwitch);
  for (SwitchId sw = 0; sw < g.switch_nodes_.size(); ++sw) g.switch_of_node_[g.switch_nodes_[sw].value] = sw;

  // LID owners: reject ranges outside the unicast space and overlaps, which
  // no forwarding table could honour.
  uint32_t max_lid = 0;
  Status bad;
  for_each_lid_owner(fabric, [&](const OwnedLids& o) {
    const uint32_t top = o.base + o.count - 1;
    if (top > Lid::max_unicast && bad.ok()) {
      bad = invalid_argument_error(fmt::format("lids {}-{} of {} leave the unicast range", o.base, top,
                                               describe(fabric, o.owner)));
    }
    if (top <= Lid::max_unicast && top > max_lid) max_lid = top;
  });
  IBSM_RETURN_IF_ERROR(bad);
  g.max_lid_ = static_cast<uint16_t>(max_lid);
  g.owner_of_lid_.assign(max_lid + 1, PortRef{});
  for_each_lid_owner(fabric, [&](const OwnedLids& o) {
    for (uint32_t lid = o.base; lid < o.base + o.count; ++lid) {
      PortRef& slot = g.owner_of_lid_[lid];
      if (slot.node.valid() && bad.ok()) {
        bad = invalid_argument_error(fmt::format("lid {} is claimed by {} and {}", lid, describe(fabric, slot),
                                                 describe(fabric, o.owner)));
      }
      slot = o.owner;
    }
  });
  IBSM_RETURN_IF_ERROR(bad);

  // Destinations and switch-to-switch edges, both in (switch, port) order.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<SwitchEdge> edge_props;
  g.dest_begin_.reserve(g.switch_nodes_.size() + 1);
  for (SwitchId sw = 0; sw < g.switch_nodes_.size(); ++sw) {
    g.dest_begin_.push_back(static_cast<uint32_t>(g.destinations_.size()));
    const NodeIndex node = g.switch_nodes_[sw];
    const Node& nd = fabric.node(node);
    const Port& port0 = nd.port(0);
    if (port0.base_lid.value != 0) {
      g.destinations_.push_back({PortRef{node, 0}, port0.base_lid, port0.lmc, sw, 0});
    }
    for (unsigned p = 1; p <= nd.num_ports; ++p) {
      const PortRef here{node, static_cast<uint8_t>(p)};
      if (!cable_usable(fabric, here)) continue;
      const Port& port = nd.port(here.port);
      const Node& peer = fabric.node(port.remote_node);
      if (peer.is_switch()) {
        if (port.remote_node == node) continue;  // a cable looped back to the same switch leads nowhere
        edges.emplace_back(sw, g.switch_of_node_[port.remote_node.value]);
        edge_props.push_back({here.port, port.remote_port});
        continue;
      }
      const Port& peer_port = peer.port(port.remote_port);
      if (peer_port.base_lid.value == 0) continue;
      g.destinations_.push_back(
          {PortRef{port.remote_node, port.remote_port}, peer_port.base_lid, peer_port.lmc, sw, here.port});
    }
  }
  g.dest_begin_.push_back(static_cast<uint32_t>(g.destinations_.size()));

  g.graph_ = SwitchGraph(boost::edges_are_sorted, edges.begin(), edges.end(), edge_props.begin(),
                         static_cast<uint32_t>(g.switch_nodes_.size()));
  g.edge_begin_.reserve(g.switch_nodes_.size() + 1);
  g.edge_target_.reserve(edges.size());
  g.edge_port_.reserve(edges.size());
  for (SwitchId sw = 0; sw < g.switch_nodes_.size(); ++sw) {
    g.graph_[sw].node = g.switch_nodes_[sw];
    g.edge_begin_.push_back(static_cast<uint32_t>(g.edge_target_.size()));
    for (const auto& e : boost::make_iterator_range(boost::out_edges(sw, g.graph_))) {
      assert(boost::get(boost::edge_index, g.graph_, e) == g.edge_target_.size());
      g.edge_target_.push_back(boost::target(e, g.graph_));
      g.edge_port_.push_back(g.graph_[e].port);
    }
  }
  g.edge_begin_.push_back(static_cast<uint32_t>(g.edge_target_.size()));
  return g;
}

PortRef RoutingGraph::owner_of(Lid lid) const {
  if (lid.value >= owner_of_lid_.size()) return PortRef{};
  return owner_of_lid_[lid.value];
}

}  // namespace ibsm::routing
