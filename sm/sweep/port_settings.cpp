#include "sm/sweep/port_settings.h"

#include <algorithm>

namespace ibsm {
namespace {

// Clears the fields whose zero means "no change" on a Set, so writing back a
// PortInfo we read changes only what we mean to.
void leave_link_alone(wire::PortInfo& p) {
  p.link_width_enabled = 0;
  p.link_speed_enabled = 0;
  p.link_speed_ext_enabled = 0;
  p.link_speed_ext_enabled2 = 0;
  p.port_state = PortState::no_change;
  p.port_phys_state = PhysState::no_change;
  p.link_down_default_state = 0;
}

}  // namespace

ManagedPortFields managed_fields(const wire::PortInfo& p) {
  return ManagedPortFields{p.lid.value,       p.lmc,           p.master_sm_lid.value, p.master_sm_sl,
                           p.gid_prefix,      p.subnet_timeout, p.hoq_life,          p.vl_stall_count,
                           p.neighbor_mtu,    p.operational_vls, p.partition_enforcement_inbound,
                           p.partition_enforcement_outbound, p.vl_high_limit};
}

MKeyFields m_key_fields(const wire::PortInfo& p) {
  return MKeyFields{p.m_key, p.m_key_protect_bits, p.m_key_lease_period};
}

std::optional<wire::PortInfo> port_info_update(const wire::PortInfo& current, const SubnetSettings& subnet,
                                               const PortAddress& address, std::optional<PeerCaps> peer,
                                               bool is_switch_external, std::optional<PortEnforcement> enforcement,
                                               std::optional<uint8_t> vl_high_limit) {
  wire::PortInfo want = current;
  if (vl_high_limit) want.vl_high_limit = *vl_high_limit;
  if (!is_switch_external) {
    want.lid = address.base_lid;
    want.lmc = address.lmc;
    want.master_sm_lid = subnet.sm_lid;
    want.master_sm_sl = subnet.sm_sl;
    want.gid_prefix = subnet.subnet_prefix;
    want.subnet_timeout = subnet.subnet_timeout;
    // The M_Key fields when the subnet has a key, or the port holds one
    // (cleared when m_key is 0). Otherwise they are left as the port has
    // them: an SMA that keeps none (ibsim reads lease 4089 whatever is
    // written) is not rewritten for them at every start.
    if (subnet.m_key != 0 || current.m_key != 0 || current.m_key_protect_bits != 0) {
      want.m_key = subnet.m_key;
      want.m_key_protect_bits = subnet.m_key_protect_bits;
      want.m_key_lease_period = subnet.m_key_lease_period;
    }
  } else {
    want.hoq_life = subnet.head_of_queue_life;
    want.vl_stall_count = subnet.vl_stall_count;
    if (enforcement) {
      want.partition_enforcement_inbound = enforcement->inbound;
      want.partition_enforcement_outbound = enforcement->outbound;
    }
  }
  if (peer) {
    // Both ends must agree on what neither exceeds (IBA 7.6.1, 7.9.1).
    uint8_t mtu = std::min({current.mtu_cap, peer->mtu_cap, subnet.max_neighbor_mtu});
    uint8_t vls = std::min({current.vl_cap, peer->vl_cap, subnet.max_op_vls});
    if (mtu) want.neighbor_mtu = mtu;
    if (vls) want.operational_vls = vls;
  }
  // The M_Key fields are compared here, not remembered with the others
  // (the cache does not hold keys): an SMA that keeps none of them is set
  // again only when the managed fields are worth it (heavy_sweep's memory).
  if (managed_fields(want) == managed_fields(current) && m_key_fields(want) == m_key_fields(current))
    return std::nullopt;
  leave_link_alone(want);
  return want;
}

wire::PortInfo port_state_change(const wire::PortInfo& configured, PortState state) {
  wire::PortInfo p = configured;
  leave_link_alone(p);
  p.port_state = state;
  return p;
}

wire::PortInfo port_phys_state_change(const wire::PortInfo& current, PhysState phys) {
  wire::PortInfo p = current;
  leave_link_alone(p);
  p.port_phys_state = phys;
  return p;
}

}  // namespace ibsm
