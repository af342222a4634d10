#include "sa/snapshot.h"

#include <algorithm>
#include <cassert>

#include "mad/wire/p_key_table.h"
#include "sa/link_rate.h"
#include "sm/sweep/heavy_sweep.h"

namespace ibsm::sa {
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

// Copies the fields the sweep manages from `programmed` into `held`.
void apply_managed(wire::PortInfo& held, const wire::PortInfo& programmed) {
  held.lid = programmed.lid;
  held.lmc = programmed.lmc;
  held.master_sm_lid = programmed.master_sm_lid;
  held.master_sm_sl = programmed.master_sm_sl;
  held.gid_prefix = programmed.gid_prefix;
  held.subnet_timeout = programmed.subnet_timeout;
  held.hoq_life = programmed.hoq_life;
  held.vl_stall_count = programmed.vl_stall_count;
  held.neighbor_mtu = programmed.neighbor_mtu;
  held.operational_vls = programmed.operational_vls;
}

// NodeInfo:LocalPortNum of every node as the SM read it: the port its
// directed route entered by.
std::vector<uint8_t> entry_ports(const Fabric& f, const std::vector<DrPath>& paths, PortRef sm_port) {
  std::vector<uint8_t> out(f.node_count(), 0);
  if (paths.size() != f.node_count() || !sm_port.node.valid()) return out;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const DrPath& path = paths[i];
    NodeIndex at = sm_port.node;
    uint8_t entry = sm_port.port;
    bool ok = true;
    for (int h = 1; h <= path.hops() && ok; ++h) {
      const Node& node = f.node(at);
      uint8_t out_port = path.port(h);
      if (out_port == 0 || out_port > node.num_ports || !node.port(out_port).connected()) {
        ok = false;
        break;
      }
      entry = node.port(out_port).remote_port;
      at = node.port(out_port).remote_node;
    }
    if (ok && at == NodeIndex{i}) out[i] = entry;
  }
  return out;
}

// The smaller of two MTU codes where 0 means "not known".
uint8_t min_known_mtu(uint8_t a, uint8_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}

std::vector<uint16_t> reset_p_key_table(size_t entries) {
  std::vector<uint16_t> t(entries, 0);
  if (!t.empty()) t[0] = wire::default_p_key;
  return t;
}

}  // namespace

wire::SlToVlTable SaSnapshotOptions::default_sl_to_vl() {
  wire::SlToVlTable t;
  for (size_t sl = 0; sl < t.vl_of_sl.size(); ++sl) t.vl_of_sl[sl] = static_cast<uint8_t>(sl);
  t.vl_of_sl[15] = 7;
  return t;
}

wire::VlArbitrationTable SaSnapshotOptions::default_vl_arbitration(bool high) {
  // Low priority: VL0 weight 0, VL1-7 weight 4; high priority: VL0 weight 4,
  // VL1-7 weight 0; the rest of the 32 entries empty.
  wire::VlArbitrationTable t;
  for (uint8_t vl = 0; vl < 8; ++vl) {
    bool heavy = high ? vl == 0 : vl != 0;
    t.entries[vl] = wire::VlArbitrationEntry{vl, static_cast<uint8_t>(heavy ? 4 : 0)};
  }
  return t;
}

const EndPort* SaSnapshot::by_port_guid(Guid guid) const {
  // The GUIDs alone, densely: the search touches a few cache lines, not EndPorts.
  auto it = std::lower_bound(endport_guids_.begin(), endport_guids_.end(), guid.value);
  if (it == endport_guids_.end() || *it != guid.value) return nullptr;
  return &endports[static_cast<size_t>(it - endport_guids_.begin())];
}

Lid SaSnapshot::record_lid(NodeIndex n, uint8_t port) const {
  const Node& node = fabric.node(n);
  return node.is_switch() ? node.port(0).base_lid : node.port(port).base_lid;
}

void SaSnapshot::index() {
  nodes_by_guid.clear();
  for (uint32_t i = 0; i < fabric.node_count(); ++i) nodes_by_guid.push_back(NodeIndex{i});
  std::sort(nodes_by_guid.begin(), nodes_by_guid.end(), [&](NodeIndex a, NodeIndex b) {
    return fabric.node(a).node_guid.value < fabric.node(b).node_guid.value;
  });

  endports.clear();
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    NodeIndex n{i};
    const Node& node = fabric.node(n);
    if (node.is_switch()) {
      endports.push_back(EndPort{PortRef{n, 0}, node.port(0).guid, node.port(0).base_lid, node.port(0).lmc});
      continue;
    }
    for (uint8_t p = 1; p <= node.num_ports; ++p)
      if (has_port_info(n, p))
        endports.push_back(EndPort{PortRef{n, p}, node.port(p).guid, node.port(p).base_lid, node.port(p).lmc});
  }
  std::sort(endports.begin(), endports.end(), [](const EndPort& a, const EndPort& b) {
    return a.guid.value != b.guid.value ? a.guid.value < b.guid.value : a.ref < b.ref;
  });
  endport_guids_.clear();
  for (const EndPort& e : endports) endport_guids_.push_back(e.guid.value);

  // Per-port links for path tracing (PortLink in snapshot.h).
  link_base_.assign(fabric.node_count() + 1, 0);
  links_.clear();
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    link_base_[i] = static_cast<uint32_t>(links_.size());
    links_.resize(links_.size() + fabric.node(NodeIndex{i}).num_ports + 1);
  }
  link_base_[fabric.node_count()] = static_cast<uint32_t>(links_.size());
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    const NodeIndex n{i};
    const Node& node = fabric.node(n);
    if (node.is_switch() && has_port_info(n, 0)) {
      const wire::PortInfo& pi = port_info[i][0];
      links_[link_base_[i]] = PortLink{.mtu = pi.mtu_cap, .rate = port_rate_code(pi)};
    }
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      if (!port.connected() || port.state != PortState::active || !has_port_info(n, p)) continue;
      const Port& peer = fabric.node(port.remote_node).port(port.remote_port);
      if (peer.state != PortState::active || !has_port_info(port.remote_node, port.remote_port)) continue;
      const wire::PortInfo& a = port_info[i][p];
      const wire::PortInfo& b = port_info[port.remote_node.value][port.remote_port];
      const uint8_t mtu =
          min_known_mtu(min_known_mtu(a.mtu_cap, b.mtu_cap), min_known_mtu(a.neighbor_mtu, b.neighbor_mtu));
      const uint8_t ra = port_rate_code(a), rb = port_rate_code(b);
      const uint8_t rate = ra == 0 ? rb : rb == 0 ? ra : (rate_mbps(ra) <= rate_mbps(rb) ? ra : rb);
      links_[link_base_[i] + p] =
          PortLink{port.remote_node.value, port.remote_port, mtu, rate, fabric.node(port.remote_node).is_switch()};
    }
  }

  lid_owner_.clear();
  for (size_t e = 0; e < endports.size(); ++e) {
    const EndPort& ep = endports[e];
    if (ep.base_lid.value == 0) continue;
    size_t last = size_t{ep.base_lid.value} + (size_t{1} << ep.lmc) - 1;
    if (last >= lid_owner_.size()) lid_owner_.resize(last + 1, 0);
    for (size_t lid = ep.base_lid.value; lid <= last; ++lid)
      if (lid_owner_[lid] == 0) lid_owner_[lid] = static_cast<uint32_t>(e + 1);
  }
}

Result<SaSnapshot> build_sa_snapshot(SaSnapshotParts parts, const SaSnapshotOptions& options) {
  SaSnapshot s;
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

  s.lfts = std::move(parts.lfts);
  s.lfts.resize(n_nodes);
  s.port_info = parts.port_info.empty() ? made_up_port_infos(f, parts.sm_port) : std::move(parts.port_info);
  for (uint32_t i = 0; i < n_nodes; ++i) s.port_info[i].resize(size_t{f.node(NodeIndex{i}).num_ports} + 1);
  s.sm_port = parts.sm_port;
  s.sm_lid = s.record_lid(parts.sm_port.node, parts.sm_port.port);
  s.subnet_prefix = options.subnet.subnet_prefix;
  s.path_packet_life_time = options.subnet.subnet_timeout;
  s.generation = options.generation;
  s.sl_to_vl = options.sl_to_vl;
  s.vl_arbitration_low = options.vl_arbitration_low;
  s.vl_arbitration_high = options.vl_arbitration_high;
  s.entry_port = entry_ports(f, parts.paths, parts.sm_port);

  // PortInfo as the sweep leaves it: the managed fields as port_info_update
  // computes them, the state the sweep brought the port to.
  SubnetSettings subnet = options.subnet;
  subnet.sm_lid = s.sm_lid;
  const auto raw = s.port_info;  // peers' caps as read, before any update
  for (uint32_t i = 0; i < n_nodes; ++i) {
    NodeIndex n{i};
    const Node& node = f.node(n);
    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      if (!s.has_port_info(n, p)) continue;
      const Port& port = node.port(p);
      bool external = node.is_switch() && p != 0;
      std::optional<PeerCaps> peer;
      if (p != 0 && port.connected()) {
        const wire::PortInfo& r = raw[port.remote_node.value][port.remote_port];
        if (r.port_state != PortState::no_change) peer = PeerCaps{r.mtu_cap, r.vl_cap};
      }
      Lid lid = s.record_lid(n, p);
      uint8_t lmc = node.is_switch() ? node.port(0).lmc : port.lmc;
      wire::PortInfo& held = s.port_info[i][p];
      if (auto update = port_info_update(held, subnet, PortAddress{lid, lmc}, peer, external))
        apply_managed(held, *update);
      if (p != 0) held.port_state = port.state;
    }
  }

  // SwitchInfo as programmed.
  s.switch_info = std::move(parts.switch_info);
  const bool no_switch_info = s.switch_info.empty();
  s.switch_info.resize(n_nodes);
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& node = f.node(NodeIndex{i});
    if (!node.is_switch()) {
      s.switch_info[i] = wire::SwitchInfo{};
      continue;
    }
    wire::SwitchInfo& si = s.switch_info[i];
    if (no_switch_info) si = made_up_switch_info(node, 32);
    if (!s.lfts[i].empty()) si.linear_fdb_top = static_cast<uint16_t>(s.lfts[i].size() - 1);
    si.life_time_value = options.switch_life_time;
    si.port_state_change = false;
  }

  // P_Key tables in their reset state (the header comment says why).
  s.p_keys.resize(n_nodes);
  for (uint32_t i = 0; i < n_nodes; ++i) {
    NodeIndex n{i};
    const Node& node = f.node(n);
    s.p_keys[i].resize(size_t{node.num_ports} + 1);
    uint16_t cap = node.partition_cap != 0
                       ? node.partition_cap
                       : (node.is_switch() ? options.default_switch_partition_cap : options.default_ca_partition_cap);
    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      if (!s.has_port_info(n, p)) continue;
      size_t entries = node.is_switch() && p != 0 ? s.switch_info[i].partition_enforcement_cap : cap;
      s.p_keys[i][p] = reset_p_key_table(entries);
    }
  }

  const Node& sm_node = f.node(parts.sm_port.node);
  s.sm_info.guid = sm_node.port(sm_node.is_switch() ? 0 : parts.sm_port.port).guid;
  s.sm_info.sm_key = options.sm_key;
  s.sm_info.priority = options.sm_priority;
  s.sm_info.sm_state = options.sm_state;
  s.sm_info.act_count = options.sm_act_count;

  s.index();
  return s;
}

Result<SaSnapshot> build_sa_snapshot(const SweepReport& report, const SaSnapshotOptions& options) {
  const DiscoveryResult& d = report.discovery;
  if (!d.local_node.valid()) return failed_precondition_error("the sweep found no local port");
  if (report.configured.node_count() != d.fabric.node_count())
    return failed_precondition_error("the sweep configured no fabric (it stopped before assigning lids)");
  if (d.port_info.size() != d.fabric.node_count())
    return failed_precondition_error("the sweep kept no port infos");
  SaSnapshotParts parts;
  parts.fabric = report.configured;
  parts.lfts = report.routes.lfts;
  parts.port_info = d.port_info;
  parts.switch_info = d.switch_info;
  parts.paths = d.paths;
  parts.sm_port = PortRef{d.local_node, d.local_port};
  auto s = build_sa_snapshot(std::move(parts), options);
  if (s.ok() && s->sm_lid != report.sm_lid)
    return internal_error("the sm port's lid in the configured fabric is not the sweep's sm lid");
  if (s.ok()) s->path_sl = report.routes.path_sl;  // the routing engine's SLs, when it assigns any
  return s;
}

}  // namespace ibsm::sa
