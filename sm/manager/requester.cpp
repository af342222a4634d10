#include "sm/manager/requester.h"

#include "mad/wire/constants.h"
#include "mad/wire/smp.h"

namespace ibsm {

std::optional<PortRef> requester_port(const DiscoveryResult& discovery, const MadPacket& request) {
  if (!discovery.local_node.valid()) return std::nullopt;
  auto smp = wire::parse_smp(request.data);
  if (!smp.ok()) return std::nullopt;
  const Fabric& f = discovery.fabric;
  std::optional<PortRef> from;
  if (smp->directed()) {
    const DrPath back = smp->return_path();
    NodeIndex node = discovery.local_node;
    for (int hop = back.hops(); hop >= 1; --hop) {
      const uint8_t in = back.port(hop);
      if (in == 0 || in > f.node(node).num_ports || !f.node(node).port(in).connected()) return std::nullopt;
      const Port& p = f.node(node).port(in);
      from = PortRef{p.remote_node, p.remote_port};
      node = p.remote_node;
    }
  } else {
    for (uint32_t i = 0; i < f.node_count() && !from; ++i) {
      const Node& n = f.node(NodeIndex{i});
      for (uint8_t p = n.is_switch() ? 0 : 1; p <= (n.is_switch() ? 0 : n.num_ports); ++p) {
        const Port& port = n.port(p);
        const uint32_t lid = request.address.lid.value;
        if (port.base_lid.value != 0 && lid >= port.base_lid.value && lid < port.base_lid.value + (1u << port.lmc))
          from = PortRef{NodeIndex{i}, p};
      }
    }
  }
  // A switch's SM runs on its port 0: the walk ends on the port it sent from.
  if (from && f.node(from->node).is_switch()) from->port = 0;
  return from;
}

std::optional<MadPacket> port_info_probe(const MadPacket& request, uint64_t m_key) {
  auto smp = wire::parse_smp(request.data);
  if (!smp.ok()) return std::nullopt;
  MadPacket probe;
  if (smp->directed()) {
    const DrPath back = smp->return_path();
    if (back.hops() == 0) return std::nullopt;  // from our own port
    DrPath there;
    for (int hop = back.hops(); hop >= 1; --hop) there = there.extended(back.port(hop));
    probe.data = wire::build_dr_smp(wire::method::get, wire::smp_attr::port_info, 0, 0, there, {}, m_key);
  } else {
    probe.data = wire::build_lid_smp(wire::method::get, wire::smp_attr::port_info, 0, 0, {}, m_key);
    probe.address.lid = request.address.lid;
  }
  return probe;
}

}  // namespace ibsm
