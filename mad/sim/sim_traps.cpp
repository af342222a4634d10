// The traps the simulated SMAs send (IBA 14.2.5.1): 128 when a switch's link
// changed, 144 when a port's CapabilityMask changed, 256 when the M_Key check
// refused an SMP. All go LID-routed to the port's MasterSMLID, once and
// without waiting for a TrapRepress, as ibsim 0.10 sends 128 and 144
// (sim_mad.c encode_trap128 / encode_trap144 / send_trap; ibsim has no 256).
#include <algorithm>
#include <array>
#include <cassert>

#include "mad/sim/sim_fabric.h"
#include "mad/sim/sim_routing.h"
#include "mad/sim/sim_travel.h"
#include "mad/sim/sma.h"
#include "mad/sim/sma_m_key.h"
#include "mad/wire/constants.h"
#include "mad/wire/notice.h"
#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"

namespace ibsm {

using sim::Arrival;
using sim::Traffic;

namespace {

// Generic notices' ProducerType is the kind of node (IBA 13.4.8.2, table 123),
// as ibsim writes its node type.
uint32_t producer_of(NodeType type) {
  switch (type) {
    case NodeType::switch_: return wire::producer_type::switch_;
    case NodeType::router: return wire::producer_type::router;
    default: return wire::producer_type::channel_adapter;
  }
}

// The Data of a generic notice (IBA 13.4.8.2) with its header filled in;
// the caller adds the trap's DataDetails.
std::array<uint8_t, wire::smp_data_size> generic_notice(uint8_t type, NodeType producer, uint16_t trap,
                                                        uint16_t issuer_lid) {
  wire::Notice notice;
  notice.is_generic = true;
  notice.type = type;
  notice.producer_type = producer_of(producer);
  notice.trap_number = trap;
  notice.issuer_lid = Lid{issuer_lid};
  std::array<uint8_t, wire::smp_data_size> data{};
  wire::encode(notice, data);
  return data;
}

}  // namespace

void SimFabric::send_trap(uint32_t node, uint8_t port, uint16_t dlid, std::span<const uint8_t> notice) {
  const sim::PortRecord& from = state_.port(node, port);
  Travel t;
  t.mgmt_class = wire::mgmt_class::subn_lid_routed;
  t.method = wire::method::trap;
  t.attr_id = wire::smp_attr::notice;
  t.slid = from.lid;
  wire::Smp smp;
  smp.mgmt_class = t.mgmt_class;
  smp.method = t.method;
  smp.attr_id = t.attr_id;
  smp.tid = next_trap_tid_++;
  assert(notice.size() == smp.data.size());
  std::copy(notice.begin(), notice.end(), smp.data.begin());
  wire::encode(smp, t.mad);
  ++counters_.traps_sent;
  const Arrival a = sim::route_lid(state_, node, port, dlid, Traffic::smp, state_.options().lid_routed_smps_need_active);
  if (!a.ok) return drop(a.reason, t);
  if (!deliver(a.node, a.port, t, a.hops * state_.options().hop_latency)) drop(DropReason::no_client, t);
}

// Trap 128 (IBA 14.2.5.1, PortStateChange): a switch whose port changed state
// tells its master SM, LID-routed from port 0, if it has a LID and knows the
// SM's. Urgent; DataDetails carry the switch's LID.
void SimFabric::send_traps() {
  for (uint32_t node : state_.take_trap_sources()) {
    const sim::PortRecord& p0 = state_.port(node, 0);
    if (p0.lid == 0 || p0.master_sm_lid == 0) continue;
    auto data = generic_notice(wire::notice_type::urgent, NodeType::switch_, wire::trap_number::link_state_change,
                               p0.lid);
    wire::set_field(data, wire::notice_fields::trap128_lid, p0.lid);
    send_trap(node, 0, p0.master_sm_lid, data);
  }
}

// Trap 144 (IBA 14.2.5.1, LocalChangedAttributes: "CapabilityMask changed"),
// Type Informational, from the port whose mask changed (a switch's port 0),
// IssuerLID and DataDetails' LIDADDR its LID, CapabilityMask the new mask as
// PortInfo reports it; the other DataDetails (OtherLocalChanges, ChangeFlags)
// stay 0, as ibsim and OpenSM leave them for a capability mask change.
// ibsim's rule for sending it: the port has a LID and a MasterSMLID, and its
// mask says IsCapabilityMaskNoticeSupported and IsTrapSupported (or
// IsNoticeSupported). With ibsim 0.10's masks (sma_port_info.cpp) that is a
// cabled CA or router port; a switch's port 0 does not advertise it and never
// sends trap 144. An SM does not trap itself: no trap when the MasterSMLID is
// the port's own.
void SimFabric::send_trap144(uint32_t node, uint8_t port) {
  if (!state_.options().send_traps) return;
  const sim::PortRecord& p = state_.port(node, port);
  if (p.lid == 0 || p.master_sm_lid == 0 || p.answers_lid(p.master_sm_lid)) return;
  const uint32_t mask = sim::port_capability_mask(state_, node, port);
  if ((mask & sim::capability_mask_notice_supported) == 0 ||
      (mask & (wire::port_cap::is_trap_supported | wire::port_cap::is_notice_supported)) == 0)
    return;
  auto data = generic_notice(wire::notice_type::info, state_.node(node).type,
                             wire::trap_number::capability_mask_change, p.lid);
  wire::set_field(data, wire::notice_fields::trap144_lid, p.lid);
  wire::set_field(data, wire::notice_fields::trap144_capability_mask, mask);
  send_trap(node, port, p.master_sm_lid, data);
}

// Trap 256 (IBA 14.2.5.1, Bad M_Key), Type Security, from the port whose
// M_Key refused `t` (a switch's port 0): who asked (LIDADDR, and for a
// directed-route SMP DRSLID and the return path as far as it fits), with
// what method, attribute and M_Key. The port needs a LID and a MasterSMLID;
// an SM's own port does not trap itself.
void SimFabric::send_trap256(uint32_t node, uint8_t in_port, const Travel& t) {
  if (!state_.options().send_traps) return;
  const uint8_t guard = sim::m_key_port(state_, node, in_port);
  const sim::PortRecord& p = state_.port(node, guard);
  if (p.lid == 0 || p.master_sm_lid == 0 || p.answers_lid(p.master_sm_lid)) return;
  namespace f = wire::notice_fields;
  auto data = generic_notice(wire::notice_type::security, state_.node(node).type, wire::trap_number::bad_m_key,
                             p.lid);
  wire::set_field(data, f::trap256_lid, t.slid);
  wire::set_field(data, f::trap256_method, t.method);
  wire::set_field(data, f::trap256_attribute_id, t.attr_id);
  wire::set_field(data, f::trap256_attribute_modifier, wire::get_field(t.mad, wire::mad_fields::attribute_modifier));
  wire::set_field(data, f::trap256_m_key, wire::get_field(t.mad, wire::smp_fields::m_key));
  if (t.directed) {
    const auto hops = static_cast<size_t>(wire::get_field(t.mad, wire::smp_fields::hop_count));
    const size_t kept = std::min(hops, f::trap256_return_path_hops);
    wire::set_field(data, f::trap256_dr_slid, wire::get_field(t.mad, wire::smp_fields::dr_slid));
    wire::set_field(data, f::trap256_dr_notice, 1);
    wire::set_field(data, f::trap256_dr_path_truncated, hops > kept ? 1 : 0);
    wire::set_field(data, f::trap256_dr_hop_count, kept);
    // Return path entries 1..hops (entry 0 is unused, IBA 14.2.2).
    std::array<uint8_t, f::trap256_return_path_hops> rpath{};
    for (size_t i = 0; i < kept; ++i) rpath[i] = t.mad[wire::smp_fields::return_path.bit_offset / 8 + 1 + i];
    wire::set_bytes(data, f::trap256_dr_return_path, rpath);
  }
  send_trap(node, guard, p.master_sm_lid, data);
}

}  // namespace ibsm
