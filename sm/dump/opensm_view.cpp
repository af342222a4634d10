#include "sm/dump/opensm_view.h"

#include <algorithm>
#include <bit>

namespace ibsm::dump {
namespace {

// The key OpenSM's GUID tables sort by on a little-endian host (see nodes()).
uint64_t table_key(Guid guid) {
  if constexpr (std::endian::native == std::endian::little) {
    uint64_t v = guid.value, swapped = 0;
    for (int i = 0; i < 8; ++i, v >>= 8) swapped = (swapped << 8) | (v & 0xff);
    return swapped;
  } else {
    return guid.value;
  }
}

// Ports that own LIDs: port 0 of a switch; cabled ports of CAs and routers
// (OpenSM never learns about a CA port without a link).
template <typename Fn>
void for_each_lid_port(const Fabric& fabric, Fn&& fn) {
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    const NodeIndex index{i};
    const Node& node = fabric.node(index);
    if (node.is_switch()) {
      if (!node.ports.empty()) fn(PortRef{index, 0}, node.port(0));
      continue;
    }
    for (size_t p = 1; p < node.ports.size(); ++p) {
      if (node.ports[p].connected()) fn(PortRef{index, static_cast<uint8_t>(p)}, node.ports[p]);
    }
  }
}

uint32_t top_lid(const Port& port) { return uint32_t{port.base_lid.value} + (1u << port.lmc) - 1; }

}  // namespace

OpenSmView::OpenSmView(const Fabric& fabric) : fabric_(fabric) {
  nodes_.reserve(fabric.node_count());
  for (uint32_t i = 0; i < fabric.node_count(); ++i) nodes_.emplace_back(i);
  std::sort(nodes_.begin(), nodes_.end(), [&](NodeIndex a, NodeIndex b) {
    return table_key(fabric.node(a).node_guid) < table_key(fabric.node(b).node_guid);
  });
  for (NodeIndex n : nodes_) {
    if (fabric.node(n).is_switch()) switches_.push_back(n);
  }

  uint32_t max_lid = 0;
  for_each_lid_port(fabric, [&](PortRef, const Port& port) {
    if (port.base_lid.is_unicast()) max_lid = std::max(max_lid, std::min<uint32_t>(top_lid(port), Lid::max_unicast));
  });
  if (max_lid == 0) return;
  lid_owner_.assign(max_lid + 1, PortRef{});
  for_each_lid_port(fabric, [&](PortRef ref, const Port& port) {
    if (!port.base_lid.is_unicast()) return;
    for (uint32_t lid = port.base_lid.value; lid <= top_lid(port) && lid <= max_lid; ++lid) {
      // A LID claimed twice is a bug of the LID assignment, not of this dump:
      // the first claimant keeps it, as OpenSM's table would.
      if (!lid_owner_[lid].node.valid()) lid_owner_[lid] = ref;
    }
  });
}

std::optional<PortRef> OpenSmView::port_of_lid(uint16_t lid) const {
  if (lid >= lid_owner_.size() || !lid_owner_[lid].node.valid()) return std::nullopt;
  return lid_owner_[lid];
}

Lid OpenSmView::lid_of(PortRef port) const {
  const Node& node = fabric_.node(port.node);
  return node.is_switch() ? node.port(0).base_lid : node.port(port.port).base_lid;
}

Guid OpenSmView::port_guid_of(PortRef port) const {
  const Node& node = fabric_.node(port.node);
  return node.is_switch() ? node.port(0).guid : node.port(port.port).guid;
}

const char* opensm_node_type_name(NodeType type) {
  switch (type) {
    case NodeType::ca: return "Channel Adapter";
    case NodeType::switch_: return "Switch";
    case NodeType::router: return "Router";
    default: return "UNKNOWN";
  }
}

}  // namespace ibsm::dump
