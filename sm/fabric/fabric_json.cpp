// write_json (declared in netfile_writer.h).
#include <iterator>

#include <fmt/format.h>

#include "mad/base/json.h"
#include "sm/fabric/netfile_writer.h"

namespace ibsm {
namespace {

using Out = std::back_insert_iterator<fmt::memory_buffer>;

const char* phys_state_name(PhysState s) {
  switch (s) {
    case PhysState::no_change: return "NoChange";
    case PhysState::sleep: return "Sleep";
    case PhysState::polling: return "Polling";
    case PhysState::disabled: return "Disabled";
    case PhysState::training: return "PortConfigurationTraining";
    case PhysState::link_up: return "LinkUp";
    case PhysState::error_recovery: return "LinkErrorRecovery";
    case PhysState::phy_test: return "PhyTest";
  }
  return "?";
}

void port_end(fmt::memory_buffer& buf, const Fabric& fabric, NodeIndex node, uint8_t port) {
  Out it(buf);
  fmt::format_to(it, "{{\"node_guid\": \"{}\", \"name\": ", fabric.node(node).node_guid);
  append_json_string(buf, fabric.node(node).name);
  fmt::format_to(it, ", \"port\": {}}}", port);
}

}  // namespace

void write_json(const Fabric& fabric, std::ostream& out) {
  fmt::memory_buffer buf;
  Out it(buf);
  fmt::format_to(it, "{{\n  \"nodes\": [");
  for (size_t i = 0; i < fabric.node_count(); ++i) {
    const Node& n = fabric.nodes()[i];
    fmt::format_to(it, "{}\n    {{\"index\": {}, \"type\": \"{}\", \"name\": ", i == 0 ? "" : ",", i,
                   node_type_name(n.type));
    append_json_string(buf, n.name);
    fmt::format_to(it, ", \"description\": ");
    append_json_string(buf, n.description);
    fmt::format_to(it,
                   ", \"node_guid\": \"{}\", \"system_guid\": \"{}\", \"vendor_id\": \"{:#x}\", "
                   "\"device_id\": \"{:#x}\", \"revision\": \"{:#x}\", \"num_ports\": {}",
                   n.node_guid, n.system_guid, n.vendor_id, n.device_id, n.revision, n.num_ports);
    if (n.is_switch()) fmt::format_to(it, ", \"enhanced_port0\": {}", n.enhanced_port0);
    fmt::format_to(it, ",\n     \"ports\": [");
    // A CA has no port 0; a switch's port 0 is its management port.
    for (size_t p = n.is_switch() ? 0 : 1, first = p; p < n.ports.size(); ++p) {
      const Port& port = n.ports[p];
      fmt::format_to(it,
                     "{}\n       {{\"num\": {}, \"guid\": \"{}\", \"lid\": {}, \"lmc\": {}, \"state\": \"{}\", "
                     "\"phys_state\": \"{}\", \"width\": \"{}\", \"speed\": \"{}\"",
                     p == first ? "" : ",", p, port.guid, port.base_lid, port.lmc, port_state_name(port.state),
                     phys_state_name(port.phys_state), link_width_name(port.width_active),
                     link_speed_name(port.speed_active, port.speed_ext_active));
      if (port.connected()) {
        fmt::format_to(it, ", \"remote\": ");
        port_end(buf, fabric, port.remote_node, port.remote_port);
      }
      fmt::format_to(it, "}}");
    }
    fmt::format_to(it, "]}}");
  }
  fmt::format_to(it, "\n  ],\n  \"links\": [");
  const std::vector<Link> links = fabric.links();
  for (size_t i = 0; i < links.size(); ++i) {
    const Link& l = links[i];
    const Port& a = fabric.node(l.a.node).port(l.a.port);
    fmt::format_to(it, "{}\n    {{\"a\": ", i == 0 ? "" : ",");
    port_end(buf, fabric, l.a.node, l.a.port);
    fmt::format_to(it, ", \"b\": ");
    port_end(buf, fabric, l.b.node, l.b.port);
    fmt::format_to(it, ", \"width\": \"{}\", \"speed\": \"{}\"}}", link_width_name(a.width_active),
                   link_speed_name(a.speed_active, a.speed_ext_active));
  }
  fmt::format_to(it, "\n  ]\n}}\n");
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace ibsm
