#include "routing/engine.h"

#include <algorithm>
#include <optional>

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
  return lft_entry(lfts[sw.value], lid.value);
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
    // The highest port named first, in a loop the compiler vectorizes (148M
    // entries at 42k LIDs): one more than each entry, so that kNoRoute
    // (255) wraps to 0 and a plain maximum skips it. The first entry beyond
    // the switch is looked for only if there is one.
    uint8_t highest_plus_one = 0;
    const uint8_t* row = lft.data();
    for (size_t lid = 0; lid < lft.size(); ++lid) {
      highest_plus_one = std::max(highest_plus_one, static_cast<uint8_t>(row[lid] + 1));
    }
    if (highest_plus_one <= node.num_ports + 1u) continue;
    for (size_t lid = 0; lid < lft.size(); ++lid) {
      if (lft[lid] != kNoRoute && lft[lid] > node.num_ports) {
        return internal_error(fmt::format("lft of switch {} sends lid {} to port {} of {}", node.node_guid, lid,
                                          lft[lid], node.num_ports));
      }
    }
  }
  return {};
}

namespace {

// Whether port p of `node` in `f` differs for routing from the same port of
// `other` in `g` (null: the node is not in `g`): its LIDs, or where its usable
// cable leads (by GUID, so node order does not matter).
bool port_differs(const Fabric& f, NodeIndex n, uint8_t p, const Fabric& g, std::optional<NodeIndex> other) {
  const Node& node = f.node(n);
  const Port& port = node.port(p);
  const bool owns_lids = node.is_switch() ? p == 0 : p != 0;
  const bool has_lids = owns_lids && port.base_lid.value != 0;
  const bool cabled = p != 0 && cable_usable(f, PortRef{n, p});
  if (!other || p > g.node(*other).num_ports || g.node(*other).is_switch() != node.is_switch()) {
    return has_lids || cabled;
  }
  const Port& there = g.node(*other).port(p);
  if (has_lids != (owns_lids && there.base_lid.value != 0)) return true;
  if (has_lids && (port.base_lid != there.base_lid || port.lmc != there.lmc)) return true;
  if (cabled != (p != 0 && cable_usable(g, PortRef{*other, p}))) return true;
  return cabled && (port.remote_port != there.remote_port ||
                    f.node(port.remote_node).node_guid != g.node(there.remote_node).node_guid);
}

// Whether some node of `f` differs from its namesake in `g`, port by port.
// (Compared in place: sorted key lists of both fabrics, built for each
// incremental sweep, cost more than the comparison at 42k LIDs in
// bench/reroute.sh.)
bool some_node_differs(const Fabric& f, const Fabric& g) {
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    const std::optional<NodeIndex> other = g.find_by_node_guid(node.node_guid);
    // A port only the namesake has is asked from g's side.
    for (unsigned p = 0; p <= node.num_ports; ++p) {
      if (port_differs(f, NodeIndex{i}, static_cast<uint8_t>(p), g, other)) return true;
    }
  }
  return false;
}

}  // namespace

bool routing_relevant_change(const Fabric& before, const Fabric& after) {
  return some_node_differs(before, after) || some_node_differs(after, before);
}

}  // namespace ibsm::routing
