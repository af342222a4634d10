#include "sm/sweep/configured_subnet.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/wire/p_key_table.h"

namespace ibsm {
namespace {

constexpr uint8_t kMtu4096 = 5;
constexpr uint8_t kVl0To7 = 4;  // VLCap/OperationalVLs code for VL0-7 (IBA 14.2.5.6)
constexpr uint8_t kVlArbCap = 8;

// A PortInfo as an SMA would answer it for a port of the fabric model, for
// snapshots of fabrics that were never read from the wire.
wire::PortInfo made_up_port_info(const Node& node, uint8_t p, bool is_sm_port) {
  const Port& port = node.port(p);
  wire::PortInfo pi;
  pi.local_port_num = p;
  pi.lid = port.base_lid;
  pi.lmc = port.lmc;
  bool port0 = node.is_switch() && p == 0;
  pi.port_state = port0 ? PortState::active : port.state;
  pi.port_phys_state = port0 ? PhysState::link_up : port.phys_state;
  pi.link_width_enabled = pi.link_width_supported = pi.link_width_active = port.width_active;
  pi.link_speed_enabled = pi.link_speed_supported = pi.link_speed_active = port.speed_active;
  pi.link_speed_ext_active = pi.link_speed_ext_supported = pi.link_speed_ext_enabled = port.speed_ext_active;
  pi.mtu_cap = kMtu4096;
  pi.vl_cap = kVl0To7;
  pi.vl_arbitration_high_cap = pi.vl_arbitration_low_cap = kVlArbCap;
  pi.guid_cap = node.is_switch() ? 1 : 32;
  pi.capability_mask = wire::port_cap::is_trap_supported | wire::port_cap::is_notice_supported;
  if (is_sm_port) pi.capability_mask |= wire::port_cap::is_sm;
  if (port.speed_ext_active != 0) pi.capability_mask |= wire::port_cap::is_extended_speeds_supported;
  return pi;
}

std::vector<std::vector<wire::PortInfo>> made_up_port_infos(const Fabric& f, PortRef sm_port) {
  std::vector<std::vector<wire::PortInfo>> out(f.node_count());
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    out[i].resize(size_t{node.num_ports} + 1);
    for (uint8_t p = node.is_switch() ? 0 : 1; p <= node.num_ports; ++p) {
      if (!node.is_switch() && !node.port(p).connected()) continue;  // never reached: never read
      out[i][p] = made_up_port_info(node, p, sm_port == PortRef{NodeIndex{i}, p});
    }
  }
  return out;
}

wire::SwitchInfo made_up_switch_info(const Node& node, uint16_t partition_cap) {
  wire::SwitchInfo si;
  si.linear_fdb_cap = 49152;
  si.multicast_fdb_cap = 1024;
  si.lids_per_port = 0;
  si.partition_enforcement_cap = partition_cap;
  si.enhanced_port0 = node.enhanced_port0;
  return si;
}

}  // namespace

void apply_managed(wire::PortInfo& held, const wire::PortInfo& written) {
  held.lid = written.lid;
  held.lmc = written.lmc;
  held.master_sm_lid = written.master_sm_lid;
  held.master_sm_sl = written.master_sm_sl;
  held.gid_prefix = written.gid_prefix;
  held.subnet_timeout = written.subnet_timeout;
  held.hoq_life = written.hoq_life;
  held.vl_stall_count = written.vl_stall_count;
  held.neighbor_mtu = written.neighbor_mtu;
  held.operational_vls = written.operational_vls;
  held.vl_high_limit = written.vl_high_limit;
  held.partition_enforcement_inbound = written.partition_enforcement_inbound;
  held.partition_enforcement_outbound = written.partition_enforcement_outbound;
  held.m_key = written.m_key;
  held.m_key_protect_bits = written.m_key_protect_bits;
  held.m_key_lease_period = written.m_key_lease_period;
}

wire::SwitchInfo programmed_switch_info(wire::SwitchInfo si, uint16_t linear_fdb_top, uint8_t life_time) {
  si.linear_fdb_top = linear_fdb_top;
  si.life_time_value = life_time;
  si.port_state_change = false;
  return si;
}

PKeyTables reset_p_keys(const Fabric& f, const std::vector<std::vector<wire::PortInfo>>& port_info,
                        const std::vector<wire::SwitchInfo>& switch_info, PartitionCaps caps,
                        const HeldPKeys& held) {
  PKeyTables out(f.node_count());
  const wire::SwitchInfo none;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    out[i].resize(size_t{node.num_ports} + 1);
    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      if (i >= port_info.size() || p >= port_info[i].size() || port_info[i][p].port_state == PortState::no_change)
        continue;
      const size_t entries = p_key_capacity(node, p, i < switch_info.size() ? switch_info[i] : none, caps);
      if (entries == 0) continue;
      const std::vector<uint16_t>& known = held.at(i, p);
      out[i][p] = known.empty() ? reset_p_key_table(entries) : known;
    }
  }
  return out;
}

Result<SubnetSnapshot> configured_subnet(SubnetParts parts, const SubnetDefaults& d) {
  SubnetSnapshot s;
  s.fabric = std::move(parts.fabric);
  const Fabric& f = s.fabric;
  const size_t n_nodes = f.node_count();
  if (!parts.sm_port.node.valid() || parts.sm_port.node.value >= n_nodes)
    return invalid_argument_error("the sm port is not a port of the fabric");
  if (!parts.lfts.empty() && parts.lfts.size() != n_nodes)
    return invalid_argument_error("lfts do not match the fabric's nodes");
  if (!parts.port_info.empty() && parts.port_info.size() != n_nodes)
    return invalid_argument_error("port infos do not match the fabric's nodes");
  if (!parts.switch_info.empty() && parts.switch_info.size() != n_nodes)
    return invalid_argument_error("switch infos do not match the fabric's nodes");
  s.sm_port = parts.sm_port;
  const Node& sm_node = f.node(s.sm_port.node);
  s.sm_lid = sm_node.port(sm_node.is_switch() ? 0 : s.sm_port.port).base_lid;
  s.paths = std::move(parts.paths);
  s.lfts = std::move(parts.lfts);
  s.lfts.resize(n_nodes);
  s.subnet_prefix = d.subnet.subnet_prefix;
  s.subnet_timeout = d.subnet.subnet_timeout;
  s.port_info = parts.port_info.empty() ? made_up_port_infos(f, parts.sm_port) : std::move(parts.port_info);
  for (uint32_t i = 0; i < n_nodes; ++i) s.port_info[i].resize(size_t{f.node(NodeIndex{i}).num_ports} + 1);

  // PortInfo as a sweep leaves it: the managed fields as port_info_update
  // computes them, the state the sweep brought the port to.
  SubnetSettings subnet = d.subnet;
  subnet.sm_lid = s.sm_lid;
  const auto raw = s.port_info;  // peers' caps as read, before any update
  for (uint32_t i = 0; i < n_nodes; ++i) {
    NodeIndex n{i};
    const Node& node = f.node(n);
    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      if (!s.has_port_info(n, p)) continue;
      const Port& port = node.port(p);
      const bool external = node.is_switch() && p != 0;
      std::optional<PeerCaps> peer;
      if (p != 0 && port.connected()) {
        const wire::PortInfo& r = raw[port.remote_node.value][port.remote_port];
        if (r.port_state != PortState::no_change) peer = PeerCaps{r.mtu_cap, r.vl_cap};
      }
      const Port& owner = node.is_switch() ? node.port(0) : port;
      wire::PortInfo& held = s.port_info[i][p];
      if (auto update = port_info_update(held, subnet, PortAddress{owner.base_lid, owner.lmc}, peer, external))
        apply_managed(held, *update);
      if (p != 0) held.port_state = port.state;
    }
  }

  s.switch_info = std::move(parts.switch_info);
  const bool made_up = s.switch_info.empty();
  s.switch_info.resize(n_nodes);
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& node = f.node(NodeIndex{i});
    if (!node.is_switch()) {
      s.switch_info[i] = wire::SwitchInfo{};
      continue;
    }
    const wire::SwitchInfo read = made_up ? made_up_switch_info(node, 32) : s.switch_info[i];
    const uint16_t top = s.lfts[i].empty() ? read.linear_fdb_top : static_cast<uint16_t>(s.lfts[i].size() - 1);
    s.switch_info[i] = programmed_switch_info(read, top, d.switch_life_time);
  }
  // The partitions as a sweep applies them to ports in their reset state.
  s.p_keys = reset_p_keys(f, s.port_info, s.switch_info, d.partition_caps);
  auto in_effect = std::make_shared<const PartitionConfig>(partitions_in_effect(d.partitions.get()));
  PartitionPlan plan = plan_partitions(PartitionPlanInput{f, *in_effect, s.sm_port, d.partition_options, s.port_info,
                                                          s.switch_info, s.p_keys, d.partition_caps});
  for (uint32_t i = 0; i < n_nodes; ++i)
    for (size_t p = 0; p < plan.tables[i].size(); ++p) {
      if (!plan.tables[i][p].empty()) s.p_keys[i][p] = std::move(plan.tables[i][p]);
      if (const auto& e = plan.enforcement[i][p]) {
        s.port_info[i][p].partition_enforcement_inbound = e->inbound;
        s.port_info[i][p].partition_enforcement_outbound = e->outbound;
      }
    }
  s.partitions = std::move(in_effect);
  return s;
}

}  // namespace ibsm
