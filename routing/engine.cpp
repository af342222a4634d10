#include "routing/engine.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace ibsm::routing {

UnicastTables UnicastTables::unrouted(const RoutingGraph& graph) {
  const Fabric& fabric = graph.fabric();
  UnicastTables t;
  t.linear_fdb_top = Lid{graph.max_lid()};
  t.lfts.resize(fabric.node_count());
  for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
    t.lfts[graph.node_of(sw).value].assign(size_t{graph.max_lid()} + 1, kNoRoute);
  }
  // A switch's own LIDs are delivered to its management port wherever the
  // rest of the fabric stands (IBA 18.2.4.3.1: port 0 is the switch itself).
  for (const Destination& d : graph.destinations()) {
    if (d.port != 0) continue;
    for (uint32_t i = 0; i < d.lid_count(); ++i) t.lfts[d.owner.node.value][d.base.value + i] = 0;
  }
  return t;
}

uint8_t UnicastTables::port(NodeIndex sw, Lid lid) const {
  if (sw.value >= lfts.size()) return kNoRoute;
  const std::vector<uint8_t>& lft = lfts[sw.value];
  return lid.value < lft.size() ? lft[lid.value] : kNoRoute;
}

Status validate_tables(const RoutingGraph& graph, const UnicastTables& tables) {
  const Fabric& fabric = graph.fabric();
  if (tables.lfts.size() != fabric.node_count()) {
    return internal_error(fmt::format("tables cover {} nodes, the fabric has {}", tables.lfts.size(),
                                      fabric.node_count()));
  }
  const size_t entries = size_t{tables.linear_fdb_top.value} + 1;
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    const std::vector<uint8_t>& lft = tables.lfts[n];
    if (!node.is_switch()) {
      if (!lft.empty()) return internal_error(fmt::format("non-switch {} has an lft", node.node_guid));
      continue;
    }
    if (lft.size() != entries) {
      return internal_error(fmt::format("lft of switch {} has {} entries, linear fdb top {} needs {}",
                                        node.node_guid, lft.size(), tables.linear_fdb_top, entries));
    }
    for (size_t lid = 0; lid < lft.size(); ++lid) {
      if (lft[lid] != kNoRoute && lft[lid] > node.num_ports) {
        return internal_error(fmt::format("lft of switch {} sends lid {} to port {} of {}", node.node_guid, lid,
                                          lft[lid], node.num_ports));
      }
    }
  }
  return {};
}

Result<MulticastTree> shortest_path_multicast_tree(const RoutingGraph& graph, std::span<const PortRef> members) {
  const Fabric& fabric = graph.fabric();
  MulticastTree tree;
  tree.ports.resize(fabric.node_count());

  // Each member's switch and that switch's port toward it; members that no
  // usable cable attaches to a switch cannot be reached and are left out.
  struct Attachment {
    SwitchId sw;
    uint8_t port;
  };
  std::vector<Attachment> attached;
  for (const PortRef& m : members) {
    if (!m.node.valid() || m.node.value >= fabric.node_count()) {
      return invalid_argument_error("multicast member is not a node of the fabric");
    }
    const Node& node = fabric.node(m.node);
    if (m.port > node.num_ports) {
      return invalid_argument_error(fmt::format("multicast member {} has no port {}", node.node_guid, m.port));
    }
    if (node.is_switch()) {
      attached.push_back({graph.switch_of(m.node), 0});
      continue;
    }
    if (!cable_usable(fabric, m)) continue;
    const Port& port = node.port(m.port);
    if (!fabric.node(port.remote_node).is_switch()) continue;
    attached.push_back({graph.switch_of(port.remote_node), port.remote_port});
  }
  if (attached.empty()) return tree;

  // Breadth-first from the root, remembering the edge each switch was reached by.
  const SwitchGraph& g = graph.graph();
  std::vector<SwitchGraph::edge_descriptor> parent_edge(graph.switch_count());
  std::vector<uint32_t> parent(graph.switch_count(), kNoSwitch);
  std::vector<SwitchId> queue{attached.front().sw};
  parent[attached.front().sw] = attached.front().sw;
  for (size_t head = 0; head < queue.size(); ++head) {
    const SwitchId at = queue[head];
    for (const auto& e : boost::make_iterator_range(boost::out_edges(at, g))) {
      const SwitchId next = boost::target(e, g);
      if (parent[next] != kNoSwitch) continue;
      parent[next] = at;
      parent_edge[next] = e;
      queue.push_back(next);
    }
  }

  // The union of the members' paths to the root, plus each member's port.
  std::vector<bool> in_tree(graph.switch_count(), false);
  in_tree[attached.front().sw] = true;
  for (const Attachment& a : attached) {
    if (parent[a.sw] == kNoSwitch) continue;  // in another part of a split fabric
    tree.ports[graph.node_of(a.sw).value].set(a.port);
    for (SwitchId at = a.sw; !in_tree[at]; at = parent[at]) {
      in_tree[at] = true;
      const SwitchEdge& edge = g[parent_edge[at]];
      tree.ports[graph.node_of(parent[at]).value].set(edge.port);
      tree.ports[graph.node_of(at).value].set(edge.remote_port);
    }
  }
  return tree;
}

namespace {

using CableKey = std::tuple<uint64_t, uint8_t, uint64_t, uint8_t>;
using LidKey = std::tuple<uint64_t, uint8_t, uint16_t, uint8_t>;

// What routing depends on, keyed by GUID so node order does not matter.
void routing_keys(const Fabric& fabric, std::vector<CableKey>& cables, std::vector<LidKey>& lids) {
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    for (unsigned p = 0; p <= node.num_ports; ++p) {
      const Port& port = node.port(static_cast<uint8_t>(p));
      const bool owns_lids = node.is_switch() ? p == 0 : p != 0;
      if (owns_lids && port.base_lid.value != 0) {
        lids.emplace_back(node.node_guid.value, static_cast<uint8_t>(p), port.base_lid.value, port.lmc);
      }
      if (p == 0 || !cable_usable(fabric, PortRef{NodeIndex{n}, static_cast<uint8_t>(p)})) continue;
      CableKey key{node.node_guid.value, static_cast<uint8_t>(p), fabric.node(port.remote_node).node_guid.value,
                   port.remote_port};
      if (std::make_pair(std::get<0>(key), std::get<1>(key)) < std::make_pair(std::get<2>(key), std::get<3>(key))) {
        cables.push_back(key);
      }
    }
  }
  std::sort(cables.begin(), cables.end());
  std::sort(lids.begin(), lids.end());
}

}  // namespace

bool routing_relevant_change(const Fabric& before, const Fabric& after) {
  std::vector<CableKey> cables_before, cables_after;
  std::vector<LidKey> lids_before, lids_after;
  routing_keys(before, cables_before, lids_before);
  routing_keys(after, cables_after, lids_after);
  return cables_before != cables_after || lids_before != lids_after;
}

}  // namespace ibsm::routing
