#include "sa/snapshot.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

#include "sa/link_rate.h"

namespace ibsm::sa {
namespace {

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
  // Sorted as (GUID, index) pairs: comparing through the nodes cost a cache
  // miss a comparison at 49k nodes.
  std::vector<std::pair<uint64_t, uint32_t>> by_guid(fabric.node_count());
  for (uint32_t i = 0; i < fabric.node_count(); ++i) by_guid[i] = {fabric.node(NodeIndex{i}).node_guid.value, i};
  std::sort(by_guid.begin(), by_guid.end());
  nodes_by_guid.clear();
  nodes_by_guid.reserve(by_guid.size());
  for (const auto& [guid, i] : by_guid) nodes_by_guid.push_back(NodeIndex{i});

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

Result<SaSnapshot> build_sa_snapshot(const SubnetSnapshot& subnet, const SaSnapshotOptions& options) {
  return build_sa_snapshot(std::make_shared<const SubnetSnapshot>(subnet), options);
}

Result<SaSnapshot> build_sa_snapshot(std::shared_ptr<const SubnetSnapshot> shared, const SaSnapshotOptions& options) {
  const SubnetSnapshot& subnet = *shared;
  SaSnapshot s;
  const size_t n_nodes = subnet.fabric.node_count();
  if (!subnet.sm_port.node.valid() || subnet.sm_port.node.value >= n_nodes)
    return invalid_argument_error("the sm port is not a port of the fabric");
  if (subnet.port_info.size() != n_nodes || subnet.switch_info.size() != n_nodes || subnet.p_keys.size() != n_nodes)
    return invalid_argument_error("the subnet's port infos, switch infos or p_key tables do not match its nodes");
  if (!subnet.lfts.empty() && subnet.lfts.size() != n_nodes)
    return invalid_argument_error("lfts do not match the fabric's nodes");
  s.fabric = subnet.fabric;
  s.lfts = subnet.lfts;  // the rows shared, not copied
  s.lfts.resize(n_nodes);
  s.port_info = subnet.port_info;
  s.switch_info = subnet.switch_info;
  s.p_keys = subnet.p_keys;
  s.sm_port = subnet.sm_port;
  s.sm_lid = s.record_lid(subnet.sm_port.node, subnet.sm_port.port);
  if (s.sm_lid != subnet.sm_lid)
    return internal_error("the sm port's lid in the configured fabric is not the sweep's sm lid");
  s.subnet_prefix = subnet.subnet_prefix;
  s.path_packet_life_time = subnet.subnet_timeout;
  s.path_sl = subnet.path_sl;  // the routing engine's SLs, when it assigns any
  s.qos_policy = subnet.qos_policy;
  s.partitions = subnet.partitions;
  s.generation = options.generation;
  s.sl_to_vl = options.sl_to_vl;
  s.vl_arbitration_low = options.vl_arbitration_low;
  s.vl_arbitration_high = options.vl_arbitration_high;
  s.entry_port = entry_ports(s.fabric, subnet.paths, subnet.sm_port);

  const Node& sm_node = s.fabric.node(subnet.sm_port.node);
  s.sm_info.guid = sm_node.port(sm_node.is_switch() ? 0 : subnet.sm_port.port).guid;
  s.sm_info.sm_key = options.sm_key;
  s.sm_info.priority = options.sm_priority;
  s.sm_info.sm_state = options.sm_state;
  s.sm_info.act_count = options.sm_act_count;

  s.index();
  return s;
}

}  // namespace ibsm::sa
