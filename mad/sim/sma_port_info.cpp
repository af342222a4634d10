// PortInfo (IBA 14.2.5.6): what the SMA reports about a port, and what an SM
// may change. The attribute modifier is the port number; a CA or router takes
// 0 as the port the SMP entered and cannot be Set through another port.
#include <algorithm>

#include "mad/sim/sma_handlers.h"
#include "mad/wire/constants.h"
#include "mad/wire/port_info.h"

namespace ibsm::sim {

namespace status = wire::mad_status;

namespace {

// ibsim 0.10's capability masks (measured): a CA port IsTrapSupported,
// IsSLMappingSupported, IsExtendedSpeedsSupported, IsCapabilityMask2Supported,
// IsVendorClassSupported, and while cabled IsCapabilityMaskNoticeSupported; a
// switch's port 0 the first four; external switch ports none.
constexpr uint32_t ca_capability_mask = 0x10C048;
constexpr uint32_t cabled_ca_capability_bits = capability_mask_notice_supported;
constexpr uint32_t switch_port0_capability_mask = 0xC048;
constexpr uint16_t capability_mask2 = 0x30;  // IsLinkWidth2xSupported, IsLinkSpeedHDRSupported
constexpr uint8_t width_supported = 0x1F;    // 1x, 4x, 8x, 12x, 2x
constexpr uint8_t speed_supported = 0x07;    // SDR, DDR, QDR
constexpr uint8_t speed_ext_supported = 0x0F;  // FDR, EDR, HDR, NDR
constexpr uint8_t vl_cap = 4;                // VL0-7

enum class PortKind { ca, switch_port0, switch_external };

PortKind kind_of(const SimState& s, uint32_t node, uint8_t port) {
  if (!s.node(node).is_switch()) return PortKind::ca;
  return port == 0 ? PortKind::switch_port0 : PortKind::switch_external;
}

uint8_t mtu_cap(PortKind k) { return k == PortKind::switch_port0 ? 3 : 4; }  // 1024 : 2048

}  // namespace

uint32_t port_capability_mask(const SimState& s, uint32_t node, uint8_t port) {
  const PortRecord& p = s.port(node, port);
  uint32_t mask = 0;
  switch (kind_of(s, node, port)) {
    case PortKind::ca: mask = ca_capability_mask | (p.cabled() ? cabled_ca_capability_bits : 0); break;
    case PortKind::switch_port0:
      mask = switch_port0_capability_mask |
             (s.options().multicast_fdb_top ? wire::port_cap::is_multicast_fdb_top_supported : 0);
      break;
    case PortKind::switch_external: break;
  }
  if (p.has(port_flag::is_sm)) mask |= wire::port_cap::is_sm;
  return mask;
}

namespace {

void encode_port_info(const SimState& s, uint32_t node, uint8_t port, uint8_t in_port, bool m_key_hidden,
                      std::span<uint8_t> data) {
  const PortRecord& p = s.port(node, port);
  const PortKind kind = kind_of(s, node, port);
  wire::PortInfo pi;
  // The M_Key components of a switch's external ports are reserved (IBA
  // 14.2.5.6): the switch's one key lives in port 0 (they read 0 here).
  pi.m_key = m_key_hidden ? 0 : p.m_key;
  pi.m_key_violations = p.m_key_violations;
  pi.gid_prefix = p.gid_prefix;
  pi.lid = Lid{p.lid};
  pi.master_sm_lid = Lid{p.master_sm_lid};
  pi.capability_mask = port_capability_mask(s, node, port);
  switch (kind) {
    case PortKind::ca:
      pi.guid_cap = defaults::ca_guid_cap;
      pi.capability_mask2 = capability_mask2;
      break;
    case PortKind::switch_port0:
      pi.guid_cap = defaults::switch_guid_cap;
      pi.resp_time_value = 8;
      pi.capability_mask2 = capability_mask2;
      break;
    case PortKind::switch_external: break;
  }
  pi.m_key_lease_period = p.m_key_lease_period;
  pi.local_port_num = in_port;  // IBA: the port that received this SMP
  pi.link_width_enabled = p.width_enabled;
  pi.link_width_supported = width_supported;
  pi.link_width_active = p.width_active;
  pi.link_speed_supported = speed_supported;
  pi.port_state = p.state;
  pi.port_phys_state = p.phys_state;
  pi.link_down_default_state = p.link_down_default_state;
  pi.m_key_protect_bits = p.m_key_protect_bits;
  pi.lmc = p.lmc;
  pi.link_speed_active = p.speed_active;
  pi.link_speed_enabled = p.speed_enabled;
  pi.neighbor_mtu = p.neighbor_mtu;
  pi.master_sm_sl = p.master_sm_sl;
  pi.vl_cap = vl_cap;
  pi.vl_high_limit = p.vl_high_limit;
  pi.vl_arbitration_high_cap = defaults::vl_arbitration_cap;
  pi.vl_arbitration_low_cap = defaults::vl_arbitration_cap;
  pi.mtu_cap = mtu_cap(kind);
  pi.vl_stall_count = p.vl_stall_count;
  pi.hoq_life = p.hoq_life;
  pi.operational_vls = p.operational_vls;
  pi.partition_enforcement_inbound = p.has(port_flag::partition_enforcement_inbound);
  pi.partition_enforcement_outbound = p.has(port_flag::partition_enforcement_outbound);
  pi.filter_raw_inbound = p.has(port_flag::filter_raw_inbound);
  pi.filter_raw_outbound = p.has(port_flag::filter_raw_outbound);
  pi.client_reregister = p.has(port_flag::client_reregister);
  pi.subnet_timeout = p.subnet_timeout;
  if (p.speed_ext_active != 0) {
    pi.link_speed_ext_active = p.speed_ext_active;
    pi.link_speed_ext_supported = speed_ext_supported;
    pi.link_speed_ext_enabled = p.speed_ext_enabled;
  }
  std::fill(data.begin(), data.end(), uint8_t{0});
  wire::encode(pi, data);
}

// LinkWidthEnabled / LinkSpeedEnabled: 0 keeps the value, all ones selects
// everything supported, anything else must be a non-empty subset of it.
bool enabled_value(uint8_t written, uint8_t all_ones, uint8_t supported, uint8_t& value) {
  if (written == 0) return true;
  if (written == all_ones) {
    value = supported;
    return true;
  }
  if ((written & ~supported) != 0) return false;
  value = written;
  return true;
}

// Whether a Set may move the port to `target` (IBA 14.2.5.6, 7.2): Down
// always; Armed only from Init and Active only from Armed, one step at a
// time; Init is the link's to reach, not the SM's. A switch's port 0 has no
// link to change.
bool state_change_allowed(PortKind kind, const PortRecord& p, PortState target) {
  switch (target) {
    case PortState::no_change: return true;
    case PortState::down: return true;
    case PortState::armed: return kind != PortKind::switch_port0 && p.link_up() && p.state == PortState::init;
    case PortState::active: return kind != PortKind::switch_port0 && p.link_up() && p.state == PortState::armed;
    case PortState::init: return false;
  }
  return false;
}

uint16_t set_port_info(SimState& s, uint32_t node, uint8_t port, std::span<const uint8_t> data) {
  auto decoded = wire::decode_port_info(data);
  if (!decoded.ok()) return status::invalid_field;
  const wire::PortInfo& in = *decoded;
  PortRecord& p = s.port(node, port);
  const PortKind kind = kind_of(s, node, port);

  // Check everything first: a refused Set changes nothing.
  const auto target = static_cast<uint8_t>(in.port_state);
  if (target > static_cast<uint8_t>(PortState::active) || !state_change_allowed(kind, p, in.port_state))
    return status::invalid_field;
  const PhysState phys = in.port_phys_state;
  if (phys != PhysState::no_change && phys != PhysState::polling && phys != PhysState::disabled)
    return status::invalid_field;
  if (phys == PhysState::disabled && kind == PortKind::switch_port0) return status::invalid_field;
  if (in.operational_vls > vl_cap) return status::invalid_field;
  if (in.neighbor_mtu > mtu_cap(kind)) return status::invalid_field;
  if (in.link_down_default_state > 2) return status::invalid_field;
  uint8_t width = p.width_enabled;
  uint8_t speed = p.speed_enabled;
  if (!enabled_value(in.link_width_enabled, 0xFF, width_supported, width)) return status::invalid_field;
  if (!enabled_value(in.link_speed_enabled, 0x0F, speed_supported, speed)) return status::invalid_field;

  // The SMA keeps what the SM writes; the M_Key check (sma_m_key.h) has
  // passed, or this Set would not be here.
  p.lid = in.lid.value;
  p.lmc = in.lmc;
  p.master_sm_lid = in.master_sm_lid.value;
  p.master_sm_sl = in.master_sm_sl;
  if (kind != PortKind::switch_external) {
    p.m_key = in.m_key;
    p.m_key_protect_bits = in.m_key_protect_bits;
    p.m_key_lease_period = in.m_key_lease_period;
    p.m_key_violations = in.m_key_violations;  // RW: an SM clears it so
  }
  const bool keep_all = s.options().sma_keeps_all_port_fields;
  if (keep_all) p.gid_prefix = in.gid_prefix;
  if (keep_all && in.neighbor_mtu != 0) p.neighbor_mtu = in.neighbor_mtu;
  if (in.operational_vls != 0) p.operational_vls = in.operational_vls;
  if (in.link_down_default_state != 0) p.link_down_default_state = in.link_down_default_state;
  p.width_enabled = width;
  p.speed_enabled = speed;
  p.hoq_life = in.hoq_life;
  p.vl_high_limit = in.vl_high_limit;
  p.vl_stall_count = in.vl_stall_count;
  if (keep_all) p.subnet_timeout = in.subnet_timeout;
  p.set(port_flag::client_reregister, in.client_reregister);
  p.set(port_flag::partition_enforcement_inbound, in.partition_enforcement_inbound);
  p.set(port_flag::partition_enforcement_outbound, in.partition_enforcement_outbound);
  p.set(port_flag::filter_raw_inbound, in.filter_raw_inbound);
  p.set(port_flag::filter_raw_outbound, in.filter_raw_outbound);

  // The physical state first: disabling takes the link down and keeps it
  // down; Polling lets a disabled port train again.
  if (phys == PhysState::disabled && p.phys_state != PhysState::disabled) {
    p.phys_state = PhysState::disabled;
    s.link_down(node, port, LinkCause::sm_set);
  } else if (phys == PhysState::polling && p.phys_state == PhysState::disabled) {
    p.phys_state = PhysState::polling;
    if (s.can_train(node, port)) s.link_up(node, port, LinkCause::sm_set);
  }
  switch (in.port_state) {
    case PortState::down:
      // The link goes down and, both ends' LinkDownDefaultState being Polling,
      // retrains at once: both ends come back in Init (ibsim does the same).
      if (kind != PortKind::switch_port0 && p.link_up()) {
        s.link_down(node, port, LinkCause::sm_set);
        if (s.can_train(node, port)) s.link_up(node, port, LinkCause::sm_set);
      }
      break;
    case PortState::armed:
    case PortState::active:
      if (p.link_up()) p.state = in.port_state;
      break;
    case PortState::no_change:
    case PortState::init: break;
  }
  return status::ok;
}

}  // namespace

uint16_t sma_port_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  const NodeRecord& node = s.node(r.node);
  if (r.attr_mod > node.num_ports) return status::invalid_field;
  auto port = static_cast<uint8_t>(r.attr_mod);
  if (!node.is_switch()) {
    if (port == 0) port = r.in_port;
    if (set && port != r.in_port) return status::invalid_field;  // a CA's ports are Set through themselves
  }
  if (set) {
    const uint16_t st = set_port_info(s, r.node, port, data);
    if (st != status::ok) return st;
  }
  encode_port_info(s, r.node, port, r.in_port, r.m_key_hidden, data);
  return status::ok;
}

}  // namespace ibsm::sim
