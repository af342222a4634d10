#include "mad/sim/sim_routing.h"

#include "mad/wire/constants.h"
#include "mad/wire/smp.h"

namespace ibsm::sim {

namespace {

namespace f = wire::smp_fields;

constexpr int max_lid_hops = 64;

Arrival dropped(DropReason reason, int hops = 0) {
  Arrival a;
  a.reason = reason;
  a.hops = hops;
  return a;
}

Arrival arrived(uint32_t node, uint8_t port, int hops) {
  Arrival a;
  a.ok = true;
  a.node = node;
  a.port = port;
  a.hops = hops;
  return a;
}

// Crosses the link out of (node, out); on success (node, port) become the
// far end. Returns the reason it cannot.
bool cross(const SimState& s, uint32_t& node, uint8_t& port, uint8_t out, Traffic traffic, bool smps_need_active,
           DropReason& reason) {
  const PortRecord& a = s.port(node, out);
  if (!a.cabled() || !a.link_up()) {
    reason = DropReason::link_down;
    return false;
  }
  const PortRecord& b = s.port(a.peer_node, a.peer_port);
  if (!b.link_up()) {
    reason = DropReason::link_down;
    return false;
  }
  const bool need_active = traffic == Traffic::data || smps_need_active;
  if (need_active && a.state != PortState::active) {
    reason = DropReason::port_state;
    return false;
  }
  if (traffic == Traffic::data ? b.state < PortState::armed : (smps_need_active && b.state != PortState::active)) {
    reason = DropReason::port_state;
    return false;
  }
  node = a.peer_node;
  port = a.peer_port;
  return true;
}

// A port a directed-route SMP may leave a node by: a CA only by the port it
// uses (the SMI checks InitialPath[1] against it), a switch by any physical port.
bool valid_out_port(const SimState& s, uint32_t node, uint8_t own_port, uint8_t out) {
  const NodeRecord& n = s.node(node);
  if (!n.is_switch()) return out == own_port;
  return out >= 1 && out <= n.num_ports;
}

uint8_t path_entry(std::span<const uint8_t> mad, const wire::Field& path, uint64_t i) {
  return mad[path.byte_offset() + i];
}

void set_path_entry(std::span<uint8_t> mad, const wire::Field& path, uint64_t i, uint8_t v) {
  mad[path.byte_offset() + i] = v;
}

// DrSLID/DrDLID other than permissive mean LID-routed parts at either end of
// the path, which are not simulated (nor by ibsim).
bool fully_directed(std::span<const uint8_t> mad) {
  return wire::get_field(mad, f::dr_slid) == wire::permissive_lid &&
         wire::get_field(mad, f::dr_dlid) == wire::permissive_lid;
}

}  // namespace

Arrival route_lid(const SimState& s, uint32_t node, uint8_t port, uint16_t dlid, Traffic traffic,
                  bool smps_need_active) {
  if (dlid == 0 || dlid == wire::permissive_lid) return dropped(DropReason::no_route);
  DropReason reason{};
  int hops = 0;
  if (!s.node(node).is_switch()) {
    if (s.port(node, port).answers_lid(dlid)) return arrived(node, port, 0);  // to itself
    if (!cross(s, node, port, port, traffic, smps_need_active, reason)) return dropped(reason);
    hops = 1;
  }
  for (;;) {
    const NodeRecord& n = s.node(node);
    if (!n.is_switch()) {
      if (s.port(node, port).answers_lid(dlid)) return arrived(node, port, hops);
      return dropped(DropReason::no_route, hops);  // a CA does not forward
    }
    if (s.port(node, 0).answers_lid(dlid)) return arrived(node, 0, hops);
    const uint8_t out = s.lft_port(node, dlid);
    if (out == 0 || out > n.num_ports) return dropped(DropReason::no_route, hops);
    if (hops >= max_lid_hops) return dropped(DropReason::hop_limit, hops);
    if (!cross(s, node, port, out, traffic, smps_need_active, reason)) return dropped(reason, hops);
    ++hops;
  }
}

Arrival route_dr_outbound(const SimState& s, const SimFaults& faults, uint32_t node, uint8_t port,
                          std::span<uint8_t> mad) {
  const uint64_t hop_count = wire::get_field(mad, f::hop_count);
  uint64_t hop_pointer = wire::get_field(mad, f::hop_pointer);
  if (hop_count > wire::max_dr_hops || hop_pointer != 0) return dropped(DropReason::malformed);
  if (!fully_directed(mad)) return dropped(DropReason::dr_lid_routed_part);
  if (hop_count == 0) {  // for the requester's own SMA
    wire::set_field(mad, f::hop_pointer, 1);
    return arrived(node, port, 0);
  }
  hop_pointer = 1;
  uint8_t out = path_entry(mad, f::initial_path, hop_pointer);
  if (!valid_out_port(s, node, port, out)) return dropped(DropReason::invalid_dr_path);
  DropReason reason{};
  int hops = 0;
  for (;;) {
    if (!cross(s, node, port, out, Traffic::smp, false, reason)) return dropped(reason, hops);
    ++hops;
    set_path_entry(mad, f::return_path, hop_pointer, port);
    if (hop_pointer == hop_count) {  // the end of the path: the SMA gets it
      wire::set_field(mad, f::hop_pointer, hop_pointer + 1);
      return arrived(node, port, hops);
    }
    // An intermediate hop: only a switch's SMI forwards (C14-9).
    if (!s.node(node).is_switch()) return dropped(DropReason::invalid_dr_path, hops);
    if (faults.unresponsive(node)) return dropped(DropReason::unresponsive, hops);
    ++hop_pointer;
    wire::set_field(mad, f::hop_pointer, hop_pointer);
    out = path_entry(mad, f::initial_path, hop_pointer);
    if (!valid_out_port(s, node, port, out)) return dropped(DropReason::invalid_dr_path, hops);
  }
}

Arrival route_dr_return(const SimState& s, const SimFaults& faults, uint32_t node, uint8_t port,
                        std::span<uint8_t> mad) {
  const uint64_t hop_count = wire::get_field(mad, f::hop_count);
  uint64_t hop_pointer = wire::get_field(mad, f::hop_pointer);
  if (hop_count > wire::max_dr_hops || hop_pointer != hop_count + 1) return dropped(DropReason::malformed);
  if (!fully_directed(mad)) return dropped(DropReason::dr_lid_routed_part);
  if (hop_count == 0) {  // from the requester's own SMA
    wire::set_field(mad, f::hop_pointer, 0);
    return arrived(node, port, 0);
  }
  hop_pointer = hop_count;
  wire::set_field(mad, f::hop_pointer, hop_pointer);
  uint8_t out = path_entry(mad, f::return_path, hop_pointer);
  if (!valid_out_port(s, node, port, out)) return dropped(DropReason::invalid_dr_path);
  DropReason reason{};
  int hops = 0;
  for (;;) {
    if (!cross(s, node, port, out, Traffic::smp, false, reason)) return dropped(reason, hops);
    ++hops;
    if (hop_pointer == 1) {  // back at the requester's node (C14-13:3)
      wire::set_field(mad, f::hop_pointer, 0);
      return arrived(node, s.node(node).is_switch() ? uint8_t{0} : port, hops);
    }
    if (!s.node(node).is_switch()) return dropped(DropReason::invalid_dr_path, hops);
    if (faults.unresponsive(node)) return dropped(DropReason::unresponsive, hops);
    --hop_pointer;
    wire::set_field(mad, f::hop_pointer, hop_pointer);
    out = path_entry(mad, f::return_path, hop_pointer);
    if (!valid_out_port(s, node, port, out)) return dropped(DropReason::invalid_dr_path, hops);
  }
}

}  // namespace ibsm::sim
