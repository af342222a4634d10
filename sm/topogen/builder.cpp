#include "sm/topogen/builder.h"

#include <utility>

#include <fmt/format.h>

namespace ibsm::topogen {

NodeIndex FabricBuilder::add(NodeType type, std::string name, unsigned ports, uint64_t guid) {
  if (!error_.ok()) return NodeIndex{};
  if (ports < 1 || ports > kMaxSwitchPorts) {
    error_ = invalid_argument_error(fmt::format("{} needs {} ports, outside 1..{}", name, ports, kMaxSwitchPorts));
    return NodeIndex{};
  }
  Node node;
  node.type = type;
  node.num_ports = static_cast<uint8_t>(ports);
  node.node_guid = Guid{guid};
  node.system_guid = Guid{guid};
  node.vendor_id = kVendorId;
  node.device_id = type == NodeType::switch_ ? kSwitchDeviceId : kCaDeviceId;
  node.description = name;
  node.name = std::move(name);
  node.ports.resize(ports + 1);
  for (unsigned n = 0; n <= ports; ++n) {
    node.ports[n].guid = Guid{type == NodeType::switch_ ? guid : guid + n};
  }
  if (type == NodeType::switch_) {
    // Switch port 0 is the management port, always up (IBA 14.2.5.6).
    node.ports[0].state = PortState::active;
    node.ports[0].phys_state = PhysState::link_up;
  } else {
    node.ports[0].guid = Guid{};  // a CA has no port 0
  }
  auto index = fabric_.add_node(std::move(node));
  if (!index.ok()) {
    error_ = index.status();
    return NodeIndex{};
  }
  return *index;
}

NodeIndex FabricBuilder::add_switch(std::string name, unsigned ports) {
  return add(NodeType::switch_, std::move(name), ports, kSwitchGuidBase + switches_++);
}

NodeIndex FabricBuilder::add_host(unsigned ports) {
  const uint64_t i = hosts_++;
  return add(NodeType::ca, fmt::format("host-{}", i), ports, kCaGuidBase + i * kCaGuidStride);
}

void FabricBuilder::connect(NodeIndex a, unsigned port_a, NodeIndex b, unsigned port_b) {
  if (!error_.ok()) return;
  if (!a.valid() || !b.valid() || port_a > kMaxSwitchPorts || port_b > kMaxSwitchPorts) {
    error_ = internal_error("generator cabled an invalid node or port");
    return;
  }
  const PortRef end_a{a, static_cast<uint8_t>(port_a)};
  const PortRef end_b{b, static_cast<uint8_t>(port_b)};
  Status status = fabric_.connect(end_a, end_b);
  if (!status.ok()) {
    error_ = std::move(status);
    return;
  }
  for (const PortRef& end : {end_a, end_b}) {
    Port& port = fabric_.node(end.node).port(end.port);
    port.width_active = link_.width;
    port.speed_active = link_.speed;
    port.speed_ext_active = link_.speed_ext;
    port.phys_state = PhysState::link_up;
    port.state = PortState::init;
  }
}

Result<Fabric> FabricBuilder::finish() && {
  if (!error_.ok()) return error_;
  return std::move(fabric_);
}

}  // namespace ibsm::topogen
