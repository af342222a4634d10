#include "mad/sim/sim_state.h"

#include <algorithm>
#include <cassert>

namespace ibsm::sim {

namespace {

// ibsim 0.10's default SLtoVL table: SL i to VL i, but SL15 to VL7.
constexpr std::array<uint8_t, 8> default_sl2vl{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7};

// ibsim 0.10's default VL arbitration tables, as on the wire (VL, weight) for
// the 8 entries a port has: low priority VL0 weight 0 and VL1-7 weight 4;
// high priority VL0 weight 4 and VL1-7 weight 0.
constexpr std::array<uint8_t, 32> default_vl_arbitration{
    0, 0, 1, 4, 2, 4, 3, 4, 4, 4, 5, 4, 6, 4, 7, 4,   // low
    0, 4, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0};  // high

// Entry 0 is the default partition, full member (IBA 10.9.1.1); the rest empty.
constexpr size_t max_p_keys = 64;
constexpr std::array<uint8_t, max_p_keys * 2> default_p_keys = [] {
  std::array<uint8_t, max_p_keys * 2> t{};
  t[0] = 0xFF;
  t[1] = 0xFF;
  return t;
}();

uint8_t or_default(uint8_t value, uint8_t fallback) { return value != 0 ? value : fallback; }

}  // namespace

SimState::SimState(Fabric topology, const SimOptions& options)
    : topology_(std::move(topology)), options_(options) {
  const size_t n_nodes = topology_.node_count();
  nodes_.reserve(n_nodes);
  size_t total_ports = 0;
  for (const Node& node : topology_.nodes()) total_ports += size_t{node.num_ports} + 1;
  ports_.resize(total_ports);

  uint32_t next_port = 0;
  for (uint32_t n = 0; n < n_nodes; ++n) {
    const Node& node = topology_.node(NodeIndex{n});
    NodeRecord rec;
    rec.first_port = next_port;
    rec.type = node.type;
    rec.num_ports = node.num_ports;
    next_port += uint32_t{node.num_ports} + 1;
    const bool sw = node.is_switch();
    if (sw) {
      rec.switch_index = static_cast<uint32_t>(switches_.size());
      switches_.emplace_back();
    }
    nodes_.push_back(rec);

    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      PortRecord& port = ports_[rec.first_port + p];
      const Port& topo = node.ports[p];
      port.sl2vl = default_sl2vl;
      port.width_active = or_default(topo.width_active, link_width::x4);
      port.width_enabled = port.width_active;
      port.speed_active = or_default(topo.speed_active, link_speed::sdr);
      port.speed_enabled = port.speed_active;
      port.speed_ext_active = topo.speed_ext_active;
      port.speed_ext_enabled = topo.speed_ext_active;
      if (p == 0) {
        if (!sw) continue;  // a CA has no port 0
        // The switch management port: always up (ibsim's SMA port template).
        port.state = PortState::active;
        port.phys_state = PhysState::link_up;
        port.lid = topo.base_lid.value;
        port.lmc = topo.lmc;
        port.neighbor_mtu = 1;  // 256
        port.m_key_lease_period = 4089;
        port.subnet_timeout = 31;
        continue;
      }
      if (topo.connected()) {
        port.peer_node = topo.remote_node.value;
        port.peer_port = topo.remote_port;
        port.state = PortState::init;
        port.phys_state = PhysState::link_up;
        if (sw) switches_.back().port_state_change = true;  // its links just came up
      }
      port.vl_stall_count = 7;
      if (!sw) {  // CA and router ports carry their own LID
        port.lid = topo.base_lid.value;
        port.lmc = topo.lmc;
        port.m_key_lease_period = 4089;
        port.subnet_timeout = 31;
      }
    }
  }
}

std::optional<Micros> SimState::m_key_lease_end(uint32_t n, uint8_t p) const {
  if (m_key_lease_ends_.empty()) return std::nullopt;  // the common case, asked for every SMP: no hashing
  auto it = m_key_lease_ends_.find(port_index(n, p));
  if (it == m_key_lease_ends_.end()) return std::nullopt;
  return it->second;
}

void SimState::set_m_key_lease_end(uint32_t n, uint8_t p, std::optional<Micros> end) {
  if (end) {
    m_key_lease_ends_[port_index(n, p)] = *end;
  } else if (!m_key_lease_ends_.empty()) {
    m_key_lease_ends_.erase(port_index(n, p));
  }
}

SwitchRecord* SimState::switch_of(uint32_t n) {
  const uint32_t s = nodes_[n].switch_index;
  return s == no_node ? nullptr : &switches_[s];
}

const SwitchRecord* SimState::switch_of(uint32_t n) const {
  const uint32_t s = nodes_[n].switch_index;
  return s == no_node ? nullptr : &switches_[s];
}

Guid SimState::port_guid(uint32_t n, uint8_t p) const {
  const Node& node = topo_node(n);
  if (node.is_switch()) return node.ports[0].guid.is_zero() ? node.node_guid : node.ports[0].guid;
  const Guid g = node.ports[p].guid;
  return g.is_zero() ? Guid{node.node_guid.value + p} : g;
}

uint8_t SimState::lft_port(uint32_t n, uint16_t lid) const {
  const SwitchRecord* sw = switch_of(n);
  if (sw == nullptr || lid > sw->linear_fdb_top || lid >= sw->lft.size()) return 0xFF;
  return sw->lft[lid];
}

size_t SimState::p_key_capacity(uint32_t n, uint8_t p) const {
  if (!nodes_[n].is_switch()) return defaults::ca_partition_cap;
  return p == 0 ? defaults::switch_partition_cap : defaults::switch_enforcement_cap;
}

std::span<const uint8_t> SimState::p_key_table(uint32_t n, uint8_t p) const {
  const size_t bytes = p_key_capacity(n, p) * 2;
  auto it = p_keys_.find(port_index(n, p));
  if (it != p_keys_.end()) return it->second;
  return std::span<const uint8_t>(default_p_keys).first(bytes);
}

std::span<uint8_t> SimState::p_key_table_for_write(uint32_t n, uint8_t p) {
  const size_t bytes = p_key_capacity(n, p) * 2;
  auto [it, inserted] = p_keys_.try_emplace(port_index(n, p));
  if (inserted) it->second.assign(default_p_keys.begin(), default_p_keys.begin() + static_cast<std::ptrdiff_t>(bytes));
  return it->second;
}

std::span<const uint8_t> SimState::vl_arbitration(uint32_t n, uint8_t p, bool high) const {
  auto it = vl_arb_.find(port_index(n, p));
  const std::array<uint8_t, 32>& t = it != vl_arb_.end() ? it->second : default_vl_arbitration;
  return std::span<const uint8_t>(t).subspan(high ? 16 : 0, 16);
}

std::span<uint8_t> SimState::vl_arbitration_for_write(uint32_t n, uint8_t p, bool high) {
  auto [it, inserted] = vl_arb_.try_emplace(port_index(n, p), default_vl_arbitration);
  return std::span<uint8_t>(it->second).subspan(high ? 16 : 0, 16);
}

std::span<const uint8_t, 8> SimState::sl_to_vl(uint32_t n, uint8_t in_port, uint8_t out_port) const {
  const SwitchRecord* sw = switch_of(n);
  if (sw == nullptr) return port(n, in_port).sl2vl;
  if (sw->sl2vl.empty()) return default_sl2vl;
  const size_t stride = size_t{nodes_[n].num_ports} + 1;
  return std::span<const uint8_t, 8>(sw->sl2vl.data() + (in_port * stride + out_port) * 8, 8);
}

std::span<uint8_t, 8> SimState::sl_to_vl_for_write(uint32_t n, uint8_t in_port, uint8_t out_port) {
  SwitchRecord* sw = switch_of(n);
  if (sw == nullptr) return port(n, in_port).sl2vl;
  const size_t stride = size_t{nodes_[n].num_ports} + 1;
  if (sw->sl2vl.empty()) {
    sw->sl2vl.resize(stride * stride * 8);
    for (size_t i = 0; i < stride * stride; ++i) std::copy(default_sl2vl.begin(), default_sl2vl.end(), sw->sl2vl.begin() + static_cast<std::ptrdiff_t>(i * 8));
  }
  return std::span<uint8_t, 8>(sw->sl2vl.data() + (in_port * stride + out_port) * 8, 8);
}

bool SimState::can_train(uint32_t n, uint8_t p) const {
  const PortRecord& a = port(n, p);
  if (!a.cabled() || a.has(port_flag::unplugged) || a.phys_state == PhysState::disabled) return false;
  const PortRecord& b = port(a.peer_node, a.peer_port);
  return !b.has(port_flag::unplugged) && b.phys_state != PhysState::disabled;
}

void SimState::note_change(uint32_t n, bool local, LinkCause cause) {
  SwitchRecord* sw = switch_of(n);
  if (sw == nullptr) return;
  if (cause == LinkCause::fault || !local) sw->port_state_change = true;
  if (cause == LinkCause::fault && options_.send_traps &&
      std::find(trap_sources_.begin(), trap_sources_.end(), n) == trap_sources_.end())
    trap_sources_.push_back(n);
}

void SimState::link_down(uint32_t n, uint8_t p, LinkCause cause) {
  auto take_down = [&](uint32_t node, uint8_t num, bool local) {
    PortRecord& e = port(node, num);
    const bool was_up = e.state != PortState::down || e.phys_state == PhysState::link_up;
    e.state = PortState::down;
    if (e.phys_state != PhysState::disabled) e.phys_state = PhysState::polling;
    if (was_up) note_change(node, local, cause);
  };
  const PortRecord& a = port(n, p);
  const uint32_t peer_node = a.peer_node;
  const uint8_t peer_port = a.peer_port;
  take_down(n, p, true);
  if (peer_node != no_node) take_down(peer_node, peer_port, false);
}

void SimState::link_up(uint32_t n, uint8_t p, LinkCause cause) {
  assert(can_train(n, p));
  auto bring_up = [&](uint32_t node, uint8_t num, bool local) {
    PortRecord& e = port(node, num);
    if (e.link_up()) return;
    e.state = PortState::init;
    e.phys_state = PhysState::link_up;
    note_change(node, local, cause);
  };
  const PortRecord& a = port(n, p);
  const uint32_t peer_node = a.peer_node;
  const uint8_t peer_port = a.peer_port;
  bring_up(n, p, true);
  bring_up(peer_node, peer_port, false);
}

std::vector<uint32_t> SimState::take_trap_sources() {
  std::vector<uint32_t> out;
  out.swap(trap_sources_);
  return out;
}

}  // namespace ibsm::sim
