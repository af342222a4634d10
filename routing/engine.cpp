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
