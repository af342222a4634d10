#include "sm/sweep/partition_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/wire/p_key_table.h"

namespace ibsm {
namespace {

constexpr uint16_t kFull = wire::p_key_full_member_bit;
constexpr uint16_t kBase = wire::p_key_base_mask;

uint16_t base_of(uint16_t key) { return key & kBase; }
bool valid_key(uint16_t key) { return base_of(key) != 0; }

std::string end_port_name(const Node& n, uint8_t port) {
  return fmt::format("{} {} port {}", n.is_switch() ? "switch" : n.type == NodeType::router ? "router" : "ca",
                     n.node_guid, port);
}

bool is_member(const PartitionMember& m, const Node& node, Guid port_guid, bool is_sm) {
  switch (m.kind) {
    case PartitionMember::Kind::all: return true;
    case PartitionMember::Kind::all_cas: return node.type == NodeType::ca;
    case PartitionMember::Kind::all_switches: return node.is_switch();
    case PartitionMember::Kind::all_routers: return node.type == NodeType::router;
    case PartitionMember::Kind::self: return is_sm;
    case PartitionMember::Kind::guid: return m.guid == port_guid;
  }
  return false;
}

// The entries one end port should hold, in partition order, and which of
// them belongs at index 0.
struct WantedKeys {
  std::vector<uint16_t> keys;
  std::optional<uint16_t> at_index0;
  bool forced = false;  // an indx0 partition's key: moves to index 0; else only into a free index 0
};

WantedKeys wanted_keys(const PartitionConfig& partitions, const Node& node, Guid port_guid, bool is_sm,
                       const PartitionOptions& options) {
  WantedKeys w;
  std::optional<uint16_t> default_key;
  for (const Partition& part : partitions.partitions) {
    bool full = false, limited = false;
    for (const PartitionMember& m : part.members) {
      if (!is_member(m, node, port_guid, is_sm)) continue;
      const Membership ms = m.membership.value_or(part.defmember);
      if (options.allow_both_pkeys) {
        full = full || ms != Membership::limited;
        limited = limited || ms != Membership::full;
      } else {
        // The last entry naming the port decides; "both" needs
        // allow_both_pkeys and means full without it.
        full = ms != Membership::limited;
        limited = !full;
      }
    }
    if (!full && !limited) continue;
    const uint16_t pkey = base_of(part.pkey);
    const uint16_t first = full ? static_cast<uint16_t>(pkey | kFull) : pkey;
    if (full) w.keys.push_back(static_cast<uint16_t>(pkey | kFull));
    if (limited) w.keys.push_back(pkey);
    if (part.indx0 && !w.at_index0) {
      w.at_index0 = first;
      w.forced = true;
    }
    if (pkey == wire::default_partition && !default_key) default_key = first;
  }
  if (!w.at_index0) w.at_index0 = default_key;
  return w;
}

// Places the wanted keys into a table of `cap` entries: held keys keep their
// index, the index-0 key goes first, the rest fill free indexes in order.
// Returns the keys that did not fit.
std::vector<uint16_t> place_keys(const WantedKeys& want, const std::vector<uint16_t>& held, bool allow_both,
                                 std::vector<uint16_t>& table) {
  std::vector<bool> placed(want.keys.size(), false);
  auto same = [allow_both](uint16_t a, uint16_t b) { return allow_both ? a == b : base_of(a) == base_of(b); };
  for (size_t i = 0; i < held.size() && i < table.size(); ++i) {
    if (!valid_key(held[i])) continue;
    for (size_t k = 0; k < want.keys.size(); ++k) {
      if (placed[k] || !same(want.keys[k], held[i])) continue;
      table[i] = want.keys[k];
      placed[k] = true;
      break;
    }
  }
  std::vector<uint16_t> pending;  // keys still to place, in order
  if (want.at_index0 && !table.empty()) {
    const uint16_t k0 = *want.at_index0;
    const auto at = std::find(table.begin(), table.end(), k0);
    const bool may_take = want.forced || !valid_key(table[0]);
    if (at == table.begin() || !may_take) {
      // there already, or index 0 is another held key the Default does not push away
    } else if (at != table.end()) {
      std::iter_swap(table.begin(), at);  // held elsewhere: the displaced key takes its index
    } else {
      if (valid_key(table[0])) pending.push_back(table[0]);
      table[0] = k0;
      for (size_t k = 0; k < want.keys.size(); ++k)
        if (!placed[k] && want.keys[k] == k0) {
          placed[k] = true;
          break;
        }
    }
  }
  for (size_t k = 0; k < want.keys.size(); ++k)
    if (!placed[k]) pending.push_back(want.keys[k]);
  std::vector<uint16_t> left_out;
  size_t free = 0;
  for (uint16_t key : pending) {
    while (free < table.size() && valid_key(table[free])) ++free;
    if (free == table.size()) {
      left_out.push_back(key);
      continue;
    }
    table[free] = key;
  }
  return left_out;
}

std::string key_list(const std::vector<uint16_t>& keys) {
  std::string s;
  for (uint16_t k : keys) s += fmt::format("{}0x{:04x}", s.empty() ? "" : " ", k);
  return s;
}

}  // namespace

PartitionConfig partitions_in_effect(const PartitionConfig* file) {
  Partition def;
  def.name = "Default";
  def.pkey = wire::default_partition;
  PartitionConfig out;
  if (file == nullptr) {
    def.ipoib = true;
    def.defmember = Membership::full;
    def.members.push_back(PartitionMember{PartitionMember::Kind::all, Guid{}, Membership::full, 0});
    out.partitions.push_back(std::move(def));
    return out;
  }
  def.members.push_back(PartitionMember{PartitionMember::Kind::all, Guid{}, Membership::limited, 0});
  def.members.push_back(PartitionMember{PartitionMember::Kind::self, Guid{}, Membership::full, 0});
  out.partitions.push_back(std::move(def));
  for (const Partition& p : file->partitions) {
    if (base_of(p.pkey) != wire::default_partition) {
      out.partitions.push_back(p);
      continue;
    }
    // The file's Default: its flags and name, its members after the built-in ones.
    Partition& d = out.partitions.front();
    std::vector<PartitionMember> members = std::move(d.members);
    d = p;
    members.insert(members.end(), p.members.begin(), p.members.end());
    d.members = std::move(members);
  }
  return out;
}

size_t p_key_capacity(const Node& node, uint8_t port, const wire::SwitchInfo& switch_info, PartitionCaps caps) {
  if (node.is_switch() && port != 0) return switch_info.partition_enforcement_cap;
  if (node.partition_cap != 0) return node.partition_cap;
  return node.is_switch() ? caps.switch_port0 : caps.ca;
}

std::vector<uint16_t> reset_p_key_table(size_t entries) {
  std::vector<uint16_t> t(entries, 0);
  if (!t.empty()) t[0] = wire::default_p_key;
  return t;
}

PartitionPlan plan_partitions(const PartitionPlanInput& in) {
  const Fabric& f = in.fabric;
  PartitionPlan plan;
  plan.tables.resize(f.node_count());
  plan.enforcement.resize(f.node_count());
  auto was_read = [&](uint32_t n, uint8_t p) {
    return n < in.port_info.size() && p < in.port_info[n].size() &&
           in.port_info[n][p].port_state != PortState::no_change;
  };
  static const wire::SwitchInfo kNoSwitchInfo;
  auto switch_info = [&](uint32_t n) -> const wire::SwitchInfo& {
    return n < in.switch_info.size() ? in.switch_info[n] : kNoSwitchInfo;
  };
  auto held = [&](uint32_t n, uint8_t p) -> const std::vector<uint16_t>& { return in.held.at(n, p); };

  // End ports first: the switch ports facing them copy their tables.
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    plan.tables[i].resize(size_t{node.num_ports} + 1);
    plan.enforcement[i].resize(size_t{node.num_ports} + 1);
    const unsigned last = node.is_switch() ? 0 : node.num_ports;
    for (unsigned pn = node.is_switch() ? 0 : 1; pn <= last; ++pn) {
      const auto p = static_cast<uint8_t>(pn);
      if (!was_read(i, p)) continue;
      const bool is_sm = in.sm_port.node == NodeIndex{i} && (node.is_switch() || in.sm_port.port == p);
      const WantedKeys want = wanted_keys(in.partitions, node, node.port(p).guid, is_sm, in.options);
      std::vector<uint16_t>& table = plan.tables[i][p];
      table.assign(p_key_capacity(node, p, switch_info(i), in.caps), 0);
      const std::vector<uint16_t> left_out = place_keys(want, held(i, p), in.options.allow_both_pkeys, table);
      if (!left_out.empty())
        plan.problems.push_back({SweepProblemKind::partition_cap, node.node_guid, PortNum{p},
                                 fmt::format("{}: {} P_Keys do not fit its PartitionCap {}; left out: {}",
                                             end_port_name(node, p), want.keys.size(), table.size(),
                                             key_list(left_out))});
    }
  }

  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    if (!node.is_switch()) continue;
    const wire::SwitchInfo& si = switch_info(i);
    if (si.partition_enforcement_cap == 0) continue;  // cannot enforce (OpenSM leaves such ports alone)
    for (unsigned pn = 1; pn <= node.num_ports; ++pn) {
      const auto p = static_cast<uint8_t>(pn);
      const Port& port = node.port(p);
      if (!port.connected() || !was_read(i, p)) continue;
      const Node& peer = f.node(port.remote_node);
      if (peer.is_switch()) continue;  // inter-switch links are not enforced
      const std::vector<uint16_t>& peer_table = plan.tables[port.remote_node.value][port.remote_port];
      if (!was_read(port.remote_node.value, port.remote_port)) continue;
      if (in.options.enforce == PartEnforce::off) {
        plan.enforcement[i][p] = PortEnforcement{};
        continue;
      }
      std::vector<uint16_t> keys;
      for (uint16_t k : peer_table) {
        if (!valid_key(k)) continue;
        // A limited key beside its full one adds nothing to the filter.
        if ((k & kFull) == 0 && std::find(peer_table.begin(), peer_table.end(), k | kFull) != peer_table.end())
          continue;
        keys.push_back(k);
      }
      const size_t cap = si.partition_enforcement_cap;
      if (keys.size() > cap) {
        plan.problems.push_back({SweepProblemKind::partition_cap, node.node_guid, PortNum{p},
                                 fmt::format("switch {} port {}: the {} P_Keys of its peer {} do not fit its "
                                             "PartitionEnforcementCap {}; partition enforcement off",
                                             node.node_guid, p, keys.size(), end_port_name(peer, port.remote_port),
                                             cap)});
        plan.enforcement[i][p] = PortEnforcement{};
        continue;
      }
      keys.resize(cap, 0);
      plan.tables[i][p] = std::move(keys);
      plan.enforcement[i][p] = PortEnforcement{in.options.enforce != PartEnforce::out,
                                               in.options.enforce != PartEnforce::in};
    }
  }
  return plan;
}

}  // namespace ibsm
