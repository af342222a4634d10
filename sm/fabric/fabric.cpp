#include "sm/fabric/fabric.h"

#include <cassert>
#include <utility>

#include <fmt/format.h>

namespace ibsm {

const char* link_width_name(uint8_t width) {
  switch (width) {
    case link_width::x1: return "1x";
    case link_width::x2: return "2x";
    case link_width::x4: return "4x";
    case link_width::x8: return "8x";
    case link_width::x12: return "12x";
    default: return "?";
  }
}

const char* link_speed_name(uint8_t speed, uint8_t speed_ext) {
  // An extended speed, when active, overrides the base speed (IBA 14.2.5.6).
  switch (speed_ext) {
    case link_speed_ext::none: break;
    case link_speed_ext::fdr: return "FDR";
    case link_speed_ext::edr: return "EDR";
    case link_speed_ext::hdr: return "HDR";
    case link_speed_ext::ndr: return "NDR";
    default: return "?";
  }
  switch (speed) {
    case link_speed::sdr: return "SDR";
    case link_speed::ddr: return "DDR";
    case link_speed::qdr: return "QDR";
    default: return "?";
  }
}

namespace {

// The ports whose GUIDs go into the port-GUID map: a switch answers with one
// GUID on every port, so only port 0 stands for it; a CA or router has none on 0.
template <typename Fn>
void for_each_indexed_port(const Node& node, Fn&& fn) {
  if (node.is_switch()) {
    if (!node.ports.empty()) fn(uint8_t{0}, node.ports[0].guid);
    return;
  }
  for (size_t p = 1; p < node.ports.size(); ++p) fn(static_cast<uint8_t>(p), node.ports[p].guid);
}

std::string describe(const Node& node) {
  if (!node.name.empty()) return fmt::format("\"{}\"", node.name);
  return fmt::format("{}", node.node_guid);
}

}  // namespace

Result<NodeIndex> Fabric::add_node(Node node) {
  if (node.ports.size() > size_t{node.num_ports} + 1) {
    return invalid_argument_error(fmt::format("node {} has {} port entries for {} ports", describe(node),
                                              node.ports.size(), node.num_ports));
  }
  node.ports.resize(size_t{node.num_ports} + 1);
  if (!node.name.empty() && by_name_.count(node.name) != 0) {
    return invalid_argument_error(fmt::format("duplicate node name \"{}\"", node.name));
  }
  if (!node.node_guid.is_zero()) {
    if (auto it = by_node_guid_.find(node.node_guid); it != by_node_guid_.end()) {
      return invalid_argument_error(fmt::format("node {} has node guid {} already used by {}", describe(node),
                                                node.node_guid, describe(nodes_[it->second.value])));
    }
  }
  // Check every port GUID before inserting any, so a failure leaves no trace.
  Status port_guid_error;
  for_each_indexed_port(node, [&](uint8_t num, Guid guid) {
    if (guid.is_zero() || !port_guid_error.ok()) return;
    bool taken = by_port_guid_.count(guid) != 0;
    // A CA's ports must differ among themselves too (a switch indexes port 0 only).
    for (uint8_t other = 1; !taken && other < num; ++other) taken = node.ports[other].guid == guid;
    if (taken) {
      port_guid_error = invalid_argument_error(
          fmt::format("node {} port {} has port guid {} already in use", describe(node), num, guid));
    }
  });
  if (!port_guid_error.ok()) return port_guid_error;

  assert(nodes_.size() < UINT32_MAX);
  const NodeIndex index{static_cast<uint32_t>(nodes_.size())};
  // Cables are made with connect(); a node arrives unconnected.
  for (Port& port : node.ports) {
    port.remote_node = NodeIndex{};
    port.remote_port = 0;
  }
  if (!node.name.empty()) by_name_.emplace(node.name, index);
  if (!node.node_guid.is_zero()) by_node_guid_.emplace(node.node_guid, index);
  for_each_indexed_port(node, [&](uint8_t num, Guid guid) {
    if (!guid.is_zero()) by_port_guid_.emplace(guid, PortRef{index, num});
  });
  nodes_.push_back(std::move(node));
  return index;
}

Status Fabric::connect(PortRef a, PortRef b) {
  for (const PortRef& end : {a, b}) {
    if (!end.node.valid() || end.node.value >= nodes_.size()) {
      return invalid_argument_error(fmt::format("no node with index {}", end.node.value));
    }
    const Node& n = nodes_[end.node.value];
    if (end.port == 0 || end.port > n.num_ports) {
      return invalid_argument_error(
          fmt::format("port {} out of range for {} ({} ports)", end.port, describe(n), n.num_ports));
    }
    const Port& p = n.ports[end.port];
    if (p.connected()) {
      return failed_precondition_error(fmt::format("port {} of {} is already cabled to port {} of {}", end.port,
                                                   describe(n), p.remote_port,
                                                   describe(nodes_[p.remote_node.value])));
    }
  }
  if (a == b) {
    return invalid_argument_error(
        fmt::format("port {} of {} cannot be cabled to itself", a.port, describe(nodes_[a.node.value])));
  }
  Port& pa = nodes_[a.node.value].ports[a.port];
  Port& pb = nodes_[b.node.value].ports[b.port];
  pa.remote_node = b.node;
  pa.remote_port = b.port;
  pb.remote_node = a.node;
  pb.remote_port = a.port;
  return Status::ok_status();
}

void Fabric::disconnect(PortRef p) {
  if (!p.node.valid() || p.node.value >= nodes_.size()) return;
  Node& n = nodes_[p.node.value];
  if (p.port >= n.ports.size()) return;
  Port& port = n.ports[p.port];
  if (!port.connected()) return;
  Port& peer = nodes_[port.remote_node.value].ports[port.remote_port];
  peer.remote_node = NodeIndex{};
  peer.remote_port = 0;
  port.remote_node = NodeIndex{};
  port.remote_port = 0;
}

std::optional<NodeIndex> Fabric::find_by_node_guid(Guid g) const {
  auto it = by_node_guid_.find(g);
  if (it == by_node_guid_.end()) return std::nullopt;
  return it->second;
}

std::optional<NodeIndex> Fabric::find_by_name(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<PortRef> Fabric::find_by_port_guid(Guid g) const {
  auto it = by_port_guid_.find(g);
  if (it == by_port_guid_.end()) return std::nullopt;
  return it->second;
}

void Fabric::reindex_port_guids() {
  by_port_guid_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeIndex index{static_cast<uint32_t>(i)};
    for_each_indexed_port(nodes_[i], [&](uint8_t num, Guid guid) {
      // The first owner keeps a GUID that was changed into a duplicate.
      if (!guid.is_zero()) by_port_guid_.emplace(guid, PortRef{index, num});
    });
  }
}

std::vector<Link> Fabric::links() const {
  std::vector<Link> out;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeIndex index{static_cast<uint32_t>(i)};
    const Node& n = nodes_[i];
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const Port& port = n.ports[p];
      if (!port.connected()) continue;
      const PortRef here{index, static_cast<uint8_t>(p)};
      const PortRef there{port.remote_node, port.remote_port};
      if (here < there) out.push_back(Link{here, there});
    }
  }
  return out;
}

size_t Fabric::switch_count() const {
  size_t count = 0;
  for (const Node& n : nodes_) count += n.is_switch() ? 1 : 0;
  return count;
}

size_t Fabric::ca_count() const {
  size_t count = 0;
  for (const Node& n : nodes_) count += (n.type == NodeType::ca || n.type == NodeType::router) ? 1 : 0;
  return count;
}

}  // namespace ibsm
