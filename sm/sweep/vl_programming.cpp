#include "sm/sweep/vl_programming.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/smp.h"
#include "sm/sweep/smp_issuer.h"

namespace ibsm {
namespace {

namespace part = wire::vl_arbitration_part;

// Data VLs an OperationalVLs code enables (IBA 14.2.5.6: 1 VL0, 2 VL0-1,
// 3 VL0-3, 4 VL0-7, 5 VL0-14); 0 for a code the port did not report.
unsigned data_vls(uint8_t op_vls) {
  static constexpr unsigned count[] = {0, 1, 2, 4, 8, 15};
  return op_vls < std::size(count) ? count[op_vls] : 0;
}

// OpenSM's masking of a template VL to the port's OperationalVLs.
wire::SlToVlTable masked(const Sl2VlTemplate& t, uint8_t op_vls) {
  const unsigned mask = (1u << (op_vls - 1)) - 1;
  wire::SlToVlTable out;
  for (size_t sl = 0; sl < t.size(); ++sl) out.vl_of_sl[sl] = t[sl] == 15 ? 15 : static_cast<uint8_t>(t[sl] & mask);
  return out;
}

uint16_t sl2vl_key(uint8_t in, uint8_t out) { return static_cast<uint16_t>((in << 8) | out); }
uint32_t vlarb_key(uint32_t p, uint8_t port) { return (p << 8) | port; }

bool link_up(const std::vector<std::vector<wire::PortInfo>>& held, NodeIndex n, uint8_t p) {
  if (n.value >= held.size() || p >= held[n.value].size()) return false;
  const PortState s = held[n.value][p].port_state;
  return s != PortState::no_change && s != PortState::down;
}

class Planner {
 public:
  Planner(const Fabric& f, const std::vector<std::vector<wire::PortInfo>>& held, VlPlan& plan)
      : f_(f), held_(held), plan_(plan) {}

  void vlarb(NodeIndex n, uint8_t port, const QosClassTables& t) {
    const wire::PortInfo& pi = held_[n.value][port];
    auto block = [&](uint32_t which, const VlArbTemplate& tmpl, size_t first, size_t cap) {
      if (cap <= first) return;
      wire::VlArbitrationTable b;
      for (size_t i = 0; i < wire::vl_arbitration_entries && first + i < cap; ++i)
        b.entries[i] = {tmpl[first + i].vl, tmpl[first + i].weight};
      put_vlarb(VlArbWant{n, port, which, b});
    };
    block(part::low_0_31, t.vlarb_low, 0, pi.vl_arbitration_low_cap);
    block(part::low_32_63, t.vlarb_low, 32, pi.vl_arbitration_low_cap);
    block(part::high_0_31, t.vlarb_high, 0, pi.vl_arbitration_high_cap);
    block(part::high_32_63, t.vlarb_high, 32, pi.vl_arbitration_high_cap);
  }

  // The table of (in, out) on node n; out_port's OperationalVLs mask it.
  void sl2vl(NodeIndex n, uint8_t in, uint8_t out, uint8_t out_port, const Sl2VlTemplate& t) {
    const uint8_t op = held_[n.value][out_port].operational_vls;
    if (data_vls(op) == 0) return;
    put_sl2vl(Sl2VlWant{n, in, out, masked(t, op)});
  }

  void put_sl2vl(Sl2VlWant w) {
    auto key = (uint64_t{w.node.value} << 16) | sl2vl_key(w.in_port, w.out_port);
    auto [it, fresh] = sl2vl_index_.try_emplace(key, plan_.sl2vl.size());
    if (fresh) {
      plan_.sl2vl.push_back(w);
    } else {
      plan_.sl2vl[it->second] = w;
    }
  }
  void put_vlarb(VlArbWant w) {
    auto key = (uint64_t{w.node.value} << 32) | vlarb_key(w.part, w.port);
    auto [it, fresh] = vlarb_index_.try_emplace(key, plan_.vlarb.size());
    if (fresh) {
      plan_.vlarb.push_back(w);
    } else {
      plan_.vlarb[it->second] = w;
    }
  }

 private:
  const Fabric& f_;
  const std::vector<std::vector<wire::PortInfo>>& held_;
  VlPlan& plan_;
  std::unordered_map<uint64_t, size_t> sl2vl_index_, vlarb_index_;
};

bool in_groups(const VlSettings& v, const std::vector<size_t>& groups, const Fabric& f, PortRef port) {
  for (size_t g : groups)
    if (port_in_group(v.policy->port_groups[g], f, port, v.sm_port, nullptr, {})) return true;
  return false;
}

// The port as a group member: a CA port itself, a switch by its port 0.
PortRef member_port(const Fabric& f, NodeIndex n, uint8_t port) {
  return f.node(n).is_switch() ? PortRef{n, 0} : PortRef{n, port};
}

// Whether a qos-setup VLArb scope covers port `port` of node `n`.
bool vlarb_scope_covers(const VlSettings& v, const QosVlArbScope& scope, const Fabric& f, NodeIndex n, uint8_t port) {
  if (scope.groups.empty() && scope.across.empty()) return true;
  if (in_groups(v, scope.groups, f, member_port(f, n, port))) return true;
  const Node& node = f.node(n);
  if (node.is_switch() && port != 0 && node.port(port).connected()) {
    const Port& p = node.port(port);
    return in_groups(v, scope.across, f, member_port(f, p.remote_node, p.remote_port));
  }
  return false;
}

// The policy's qos-setup scopes over what the keys planned, in file order.
void apply_qos_setup(const Fabric& f, const std::vector<std::vector<wire::PortInfo>>& held, const VlSettings& v,
                     Planner& p) {
  for (const QosVlArbScope& scope : v.policy->vlarb_scopes) {
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const NodeIndex n{i};
      const Node& node = f.node(n);
      for (uint8_t port = 1; port <= node.num_ports; ++port) {
        if (!node.port(port).connected() || !link_up(held, n, port)) continue;
        if (!vlarb_scope_covers(v, scope, f, n, port)) continue;
        QosClassTables t = v.tables.of(qos_port_class(node, port));
        if (scope.high) t.vlarb_high = *scope.high;
        if (scope.low) t.vlarb_low = *scope.low;
        p.vlarb(n, port, t);
      }
    }
  }
  for (const QosSl2VlScope& scope : v.policy->sl2vl_scopes) {
    const bool everywhere = scope.groups.empty() && scope.across_from.empty() && scope.across_to.empty();
    auto allowed = [](const std::vector<QosRange>& ports, uint8_t port) {
      return ports.empty() || std::any_of(ports.begin(), ports.end(), [port](const QosRange& r) { return r.contains(port); });
    };
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const NodeIndex n{i};
      const Node& node = f.node(n);
      if (!node.is_switch()) {
        for (uint8_t port = 1; port <= node.num_ports; ++port) {
          if (!node.port(port).connected() || !link_up(held, n, port)) continue;
          if (!(held[i][port].capability_mask & wire::port_cap::is_sl_mapping_supported)) continue;
          if (everywhere || in_groups(v, scope.groups, f, PortRef{n, port})) p.sl2vl(n, port, port, port, scope.table);
        }
        continue;
      }
      if (held[i][0].port_state == PortState::no_change ||
          !(held[i][0].capability_mask & wire::port_cap::is_sl_mapping_supported))
        continue;
      const bool whole = everywhere || in_groups(v, scope.groups, f, PortRef{n, 0});
      auto peer_in = [&](const std::vector<size_t>& groups, uint8_t port) {
        if (port == 0 || groups.empty()) return false;
        const Port& pp = node.port(port);
        return pp.connected() && in_groups(v, groups, f, member_port(f, pp.remote_node, pp.remote_port));
      };
      for (uint8_t out = 1; out <= node.num_ports; ++out) {
        if (!node.port(out).connected() || !link_up(held, n, out) || !allowed(scope.to, out)) continue;
        for (uint8_t in = 0; in <= node.num_ports; ++in) {
          if (in == out || (in != 0 && (!node.port(in).connected() || !link_up(held, n, in)))) continue;
          if (!allowed(scope.from, in)) continue;
          if (whole || peer_in(scope.across_to, out) || peer_in(scope.across_from, in))
            p.sl2vl(n, in, out, out, scope.table);
        }
      }
    }
  }
}

}  // namespace

QosPortClass qos_port_class(const Node& node, uint8_t port) {
  if (node.is_switch()) return port == 0 ? QosPortClass::sw0 : QosPortClass::swe;
  return node.type == NodeType::router ? QosPortClass::rtr : QosPortClass::ca;
}


std::optional<uint8_t> wanted_vl_high_limit(const VlSettings& settings, const Fabric& f, NodeIndex n, uint8_t port) {
  if (!settings.qos) return std::nullopt;
  std::optional<uint8_t> limit = settings.tables.of(qos_port_class(f.node(n), port)).high_limit;
  if (settings.policy)
    for (const QosVlArbScope& scope : settings.policy->vlarb_scopes)
      if (scope.high_limit && vlarb_scope_covers(settings, scope, f, n, port)) limit = scope.high_limit;
  return limit;
}

VlPlan plan_vl_tables(const Fabric& f, const std::vector<std::vector<wire::PortInfo>>& held,
                      const std::vector<wire::SwitchInfo>& switch_info, const VlSettings& settings,
                      const std::optional<std::vector<routing::Sl2VlTable>>& engine_sl2vl,
                      const std::optional<std::vector<routing::VlArbTable>>& engine_vlarb) {
  VlPlan plan;
  Planner p(f, held, plan);
  if (settings.qos) {
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const NodeIndex n{i};
      const Node& node = f.node(n);
      if (n.value >= held.size()) continue;
      if (node.is_switch()) {
        const QosClassTables& swe = settings.tables.of(QosPortClass::swe);
        // A switch's capabilities are its port 0's (IBA 14.2.5.6).
        const bool sl_map = held[i][0].port_state != PortState::no_change &&
                            (held[i][0].capability_mask & wire::port_cap::is_sl_mapping_supported) != 0;
        for (uint8_t out = 1; out <= node.num_ports; ++out) {
          if (!node.port(out).connected() || !link_up(held, n, out)) continue;
          p.vlarb(n, out, swe);
          if (!sl_map) continue;
          p.sl2vl(n, 0, out, out, swe.sl2vl);
          for (uint8_t in = 1; in <= node.num_ports; ++in)
            if (in != out && node.port(in).connected() && link_up(held, n, in)) p.sl2vl(n, in, out, out, swe.sl2vl);
        }
        if (i < switch_info.size() && switch_info[i].enhanced_port0 &&
            held[i][0].port_state != PortState::no_change) {
          const QosClassTables& sw0 = settings.tables.of(QosPortClass::sw0);
          p.vlarb(n, 0, sw0);
          if (sl_map) p.sl2vl(n, 0, 0, 0, sw0.sl2vl);
        }
      } else {
        for (uint8_t port = 1; port <= node.num_ports; ++port) {
          if (!node.port(port).connected() || !link_up(held, n, port)) continue;
          const QosClassTables& t = settings.tables.of(qos_port_class(node, port));
          p.vlarb(n, port, t);
          if (held[i][port].capability_mask & wire::port_cap::is_sl_mapping_supported)
            p.sl2vl(n, port, port, port, t.sl2vl);
        }
      }
    }
  }
  if (settings.qos && settings.policy) apply_qos_setup(f, held, settings, p);
  if (engine_sl2vl) {
    for (const routing::Sl2VlTable& t : *engine_sl2vl) {
      if (t.node.value >= f.node_count()) continue;
      const Node& node = f.node(t.node);
      const uint8_t port = node.is_switch() ? t.out_port : t.in_port;
      if (port > node.num_ports) continue;
      const unsigned vls = t.node.value < held.size() && port < held[t.node.value].size()
                               ? data_vls(held[t.node.value][port].operational_vls)
                               : 0;
      for (size_t sl = 0; sl < t.vl_of_sl.size(); ++sl) {
        if (t.vl_of_sl[sl] == 15 || t.vl_of_sl[sl] < vls) continue;
        plan.problems.push_back({SweepProblemKind::vl_cap, node.node_guid, PortNum{port},
                                 fmt::format("{} {} port {}: the routing maps SL{} to VL{}, beyond the {} VLs the "
                                             "port runs",
                                             node.is_switch() ? "switch" : "ca", node.node_guid, port, sl,
                                             t.vl_of_sl[sl], vls)});
        break;
      }
      Sl2VlWant w{t.node, node.is_switch() ? t.in_port : port, node.is_switch() ? t.out_port : port, {}};
      w.table.vl_of_sl = t.vl_of_sl;
      p.put_sl2vl(w);
    }
  }
  if (engine_vlarb) {
    for (const routing::VlArbTable& t : *engine_vlarb) {
      if (t.node.value >= f.node_count()) continue;
      const uint8_t port = t.port;
      auto put = [&](uint32_t which, const std::vector<std::pair<uint8_t, uint8_t>>& entries, size_t first) {
        if (entries.size() <= first) return;
        wire::VlArbitrationTable b;
        for (size_t i = 0; i < wire::vl_arbitration_entries && first + i < entries.size(); ++i)
          b.entries[i] = {entries[first + i].first, entries[first + i].second};
        p.put_vlarb(VlArbWant{t.node, port, which, b});
      };
      put(part::low_0_31, t.low, 0);
      put(part::low_32_63, t.low, 32);
      put(part::high_0_31, t.high, 0);
      put(part::high_32_63, t.high, 32);
    }
  }
  return plan;
}

void forget_reset_vl_tables(const DiscoveryResult& found, VlTablesMemoryMap& memory) {
  const Fabric& f = found.fabric;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    auto mem = memory.find(node.node_guid);
    if (mem == memory.end()) continue;
    if (node.is_switch()) {
      if (i < found.switch_info.size() && found.switch_info[i].linear_fdb_top == 0) memory.erase(mem);
      continue;
    }
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      if (i >= found.port_info.size() || p >= found.port_info[i].size()) continue;
      const PortState s = found.port_info[i][p].port_state;
      if (s == PortState::no_change || s == PortState::active) continue;
      mem->second.sl2vl.erase(sl2vl_key(p, p));
      for (uint32_t w = part::low_0_31; w <= part::high_32_63; ++w) mem->second.vlarb.erase(vlarb_key(w, p));
    }
  }
}

namespace {

// The node's path for a table of `port`: a switch is reached at its node
// path (the modifier names the port), a CA port over its own cable.
std::optional<DrPath> table_path(const DiscoveryResult& found, NodeIndex n, uint8_t port) {
  if (found.fabric.node(n).is_switch()) return found.paths[n.value];
  return path_into(found, n, port);
}

}  // namespace

VlProgrammingCounts program_vl_tables(SmpIssuer& smp, const DiscoveryResult& found, const VlPlan& plan,
                                      VlTablesMemoryMap& memory) {
  VlProgrammingCounts counts;
  const Fabric& f = found.fabric;
  auto sl2vl_mod = [&](const Sl2VlWant& w) {
    return f.node(w.node).is_switch() ? wire::sl_to_vl_attr_mod(w.in_port, w.out_port) : 0u;
  };
  // A CA's table is the one of the port the SMP enters; the port bits are the switch's.
  auto vlarb_mod = [&](const VlArbWant& w) {
    return wire::vl_arbitration_attr_mod(w.part, f.node(w.node).is_switch() ? w.port : 0);
  };
  auto subject = [&](const char* what, NodeIndex n, uint8_t port, uint32_t mod) {
    const Node& node = f.node(n);
    return SmpSubject{fmt::format("{} (modifier 0x{:x}) on {} {} port {}", what, mod,
                                  node.is_switch() ? "switch" : "ca", node.node_guid, port),
                      node.node_guid, PortNum{port}};
  };
  // An answer (to a Get or a Set) is what the port holds; no answer, or a
  // bad one, leaves it unknown.
  auto remember_sl2vl = [&memory](Guid g, uint16_t key) {
    return [&memory, g, key](std::span<const uint8_t> data) {
      auto t = wire::decode_sl_to_vl_table(data);
      if (t.ok()) {
        memory[g].sl2vl[key] = *t;
      } else {
        memory[g].sl2vl.erase(key);
      }
    };
  };
  auto remember_vlarb = [&memory](Guid g, uint32_t key) {
    return [&memory, g, key](std::span<const uint8_t> data) {
      auto t = wire::decode_vl_arbitration_table(data);
      if (t.ok()) {
        memory[g].vlarb[key] = *t;
      } else {
        memory[g].vlarb.erase(key);
      }
    };
  };
  auto forget_sl2vl = [&memory](Guid g, uint16_t key) { return [&memory, g, key] { memory[g].sl2vl.erase(key); }; };
  auto forget_vlarb = [&memory](Guid g, uint32_t key) { return [&memory, g, key] { memory[g].vlarb.erase(key); }; };

  // Read what the SM does not know.
  for (const Sl2VlWant& w : plan.sl2vl) {
    const Guid g = f.node(w.node).node_guid;
    const uint16_t key = sl2vl_key(w.in_port, w.out_port);
    if (memory[g].sl2vl.count(key)) continue;
    auto path = table_path(found, w.node, w.out_port);
    if (!path) continue;
    ++counts.tables_read;
    smp.get(*path, wire::smp_attr::sl_to_vl_mapping_table, sl2vl_mod(w), subject("SL2VL get", w.node, w.out_port, sl2vl_mod(w)),
            remember_sl2vl(g, key), forget_sl2vl(g, key));
  }
  for (const VlArbWant& w : plan.vlarb) {
    const Guid g = f.node(w.node).node_guid;
    const uint32_t key = vlarb_key(w.part, w.port);
    if (memory[g].vlarb.count(key)) continue;
    auto path = table_path(found, w.node, w.port);
    if (!path) continue;
    ++counts.tables_read;
    smp.get(*path, wire::smp_attr::vl_arbitration_table, vlarb_mod(w), subject("VLArb get", w.node, w.port, vlarb_mod(w)),
            remember_vlarb(g, key), forget_vlarb(g, key));
  }
  if (counts.tables_read) smp.run();

  // Set what differs.
  for (const Sl2VlWant& w : plan.sl2vl) {
    const Guid g = f.node(w.node).node_guid;
    const uint16_t key = sl2vl_key(w.in_port, w.out_port);
    auto held = memory[g].sl2vl.find(key);
    if (held == memory[g].sl2vl.end() || held->second == w.table) continue;  // unknown: not read, reported
    auto path = table_path(found, w.node, w.out_port);
    if (!path) continue;
    ++counts.sl2vl_sets;
    memory[g].sl2vl.erase(held);
    smp.set(*path, wire::smp_attr::sl_to_vl_mapping_table, sl2vl_mod(w), w.table,
            subject("SL2VL set", w.node, w.out_port, sl2vl_mod(w)), remember_sl2vl(g, key), forget_sl2vl(g, key));
  }
  for (const VlArbWant& w : plan.vlarb) {
    const Guid g = f.node(w.node).node_guid;
    const uint32_t key = vlarb_key(w.part, w.port);
    auto held = memory[g].vlarb.find(key);
    if (held == memory[g].vlarb.end() || held->second == w.block) continue;
    auto path = table_path(found, w.node, w.port);
    if (!path) continue;
    ++counts.vlarb_sets;
    memory[g].vlarb.erase(held);
    smp.set(*path, wire::smp_attr::vl_arbitration_table, vlarb_mod(w), w.block,
            subject("VLArb set", w.node, w.port, vlarb_mod(w)), remember_vlarb(g, key), forget_vlarb(g, key));
  }
  smp.run();
  return counts;
}

}  // namespace ibsm
