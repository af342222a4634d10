#include "routing/torus_2qos.h"

#include <array>
#include <vector>

#include <fmt/format.h>

namespace ibsm::routing {

namespace {

using Coord = std::array<uint32_t, kTorusDims>;

// Whether the pristine torus sends a path from a to b along dimension d the
// "+" way: the short way round a ring (a tie: "+"), toward b on a line.
bool pristine_plus(const TorusTopology& t, unsigned d, uint32_t a, uint32_t b) {
  if (!t.wraps[d]) return b > a;
  const uint32_t r = t.radix[d];
  const uint32_t forward = (b + r - a) % r;
  return forward <= r - forward;
}

// The next hops of one torus: by (switch, direction) the ports toward that
// neighbour, and by (dimension, position) whether the cable from there to
// the next position in "+" is up.
class Hops {
 public:
  Hops(const RoutingGraph& graph, const TorusTopology& t) : graph_(graph), t_(t) {
    ports_.resize(size_t{graph.switch_count()} * 2 * kTorusDims);
    for (unsigned d = 0; d < kTorusDims; ++d) up_[d].assign(t.positions(), 0);
    for (SwitchId v = 0; v < graph.switch_count(); ++v) {
      for (uint32_t e = graph.edge_begin(v); e < graph.edge_begin(v + 1); ++e) {
        const uint8_t dir = t.edge_dir[e];
        if (dir == kNoDirection) continue;
        ports_[v * 2 * kTorusDims + dir].push_back(graph.edge_port(e));
        if ((dir & 1) == 0) up_[dir >> 1][t.position(t.coord[v])] = 1;
      }
    }
  }

  // The direction switch `from` sends packets for switch `to` in, or an
  // error when the fabric's failures leave no dimension-order path.
  Result<uint8_t> direction(SwitchId from, SwitchId to) const {
    const Coord& a = t_.coord[from];
    const Coord& b = t_.coord[to];
    for (uint8_t d = 0; d < kTorusDims; ++d) {
      if (a[d] == b[d]) continue;
      const bool plus = pristine_plus(t_, d, a[d], b[d]);
      if (open(a, d, b[d], plus)) return static_cast<uint8_t>(2 * d + (plus ? 0 : 1));
      if (t_.wraps[d] && open(a, d, b[d], !plus)) return static_cast<uint8_t>(2 * d + (plus ? 1 : 0));
      return failed_precondition_error(fmt::format(
          "no dimension-order path from switch {} to switch {}: the {} {} of dimension {} through {} is broken{}",
          name(from), name(to), t_.wraps[d] ? "ring" : "line", coords(a, d), "xyz"[d], name(from),
          t_.wraps[d] ? " on both sides (failed cables or a failed switch)" : " (a failed cable or switch)"));
    }
    return kNoDirection;
  }
  std::span<const uint8_t> ports(SwitchId v, uint8_t dir) const { return ports_[v * 2 * kTorusDims + dir]; }

 private:
  // Whether every cable from a's place along dimension d to coordinate b, the
  // "+" way or the "-" way, is up.
  bool open(Coord c, unsigned d, uint32_t b, bool plus) const {
    const uint32_t r = t_.radix[d];
    while (c[d] != b) {
      if (plus) {
        if (!t_.wraps[d] && c[d] + 1 >= r) return false;
        if (!up_[d][t_.position(c)]) return false;
        c[d] = (c[d] + 1) % r;
      } else {
        if (!t_.wraps[d] && c[d] == 0) return false;
        c[d] = (c[d] + r - 1) % r;
        if (!up_[d][t_.position(c)]) return false;
      }
    }
    return true;
  }
  std::string name(SwitchId v) const {
    const Node& node = graph_.fabric().node(graph_.node_of(v));
    return node.name.empty() ? fmt::format("{}", node.node_guid) : fmt::format("{} ({})", node.node_guid, node.name);
  }
  std::string coords(const Coord& c, unsigned d) const {
    std::string out;
    for (unsigned k = 0; k < kTorusDims; ++k) {
      if (t_.radix[k] <= 1) continue;
      out += out.empty() ? "(" : ",";
      out += k == d ? std::string("*") : fmt::format("{}", c[k]);
    }
    return out + ")";
  }

  const RoutingGraph& graph_;
  const TorusTopology& t_;
  std::vector<std::vector<uint8_t>> ports_;
  std::array<std::vector<uint8_t>, kTorusDims> up_;
};

// The switch a LID's packets enter the fabric or leave it at.
SwitchId switch_of_lid(const RoutingGraph& graph, Lid lid) {
  const PortRef owner = graph.owner_of(lid);
  if (!owner.node.valid()) return kNoSwitch;
  const Node& node = graph.fabric().node(owner.node);
  if (node.is_switch()) return graph.switch_of(owner.node);
  const Port& port = node.port(owner.port);
  return port.connected() ? graph.switch_of(port.remote_node) : kNoSwitch;
}

}  // namespace

Result<UnicastTables> Torus2QosEngine::compute(const RoutingInput& input) {
  const RoutingGraph& graph = input.graph;
  topology_.reset();
  // The torus of the last routing if this fabric still fits it (the same
  // torus with cables or switches missing), else found afresh.
  std::optional<TorusTopology> recalled;
  if (memory_ != nullptr && memory_->config == config_) recalled = recall_torus(graph, *memory_);
  const bool remembered = recalled.has_value();
  Result<TorusTopology> found =
      remembered ? Result<TorusTopology>(std::move(*recalled)) : discover_torus(graph, config_.get());
  if (!found.ok()) return found.status();
  const TorusTopology& t = *found;
  unsigned dims = 0;
  for (unsigned d = 0; d < kTorusDims; ++d) dims += t.radix[d] > 1 ? 1 : 0;
  if (dims < 1) return failed_precondition_error("a torus of one switch");
  const Hops hops(graph, t);
  if (config_ != nullptr) {
    for (SwitchId v = 0; v < graph.switch_count(); ++v) {
      for (uint8_t dir = 0; dir < 2 * kTorusDims; ++dir) {
        if (hops.ports(v, dir).size() > config_->portgroup_max_ports) {
          return failed_precondition_error(fmt::format("{} parallel cables from one switch, more than portgroup_max_ports {}",
                                                       hops.ports(v, dir).size(), config_->portgroup_max_ports));
        }
      }
    }
  }

  UnicastTables tables = UnicastTables::unrouted(graph);
  std::vector<uint8_t> direction(graph.switch_count());
  for (SwitchId to = 0; to < graph.switch_count(); ++to) {
    for (SwitchId from = 0; from < graph.switch_count(); ++from) {
      if (from == to) continue;
      Result<uint8_t> dir = hops.direction(from, to);
      if (!dir.ok()) return dir.status();
      direction[from] = *dir;
    }
    uint32_t rank = 0;  // parallel cables: round robin over the destination's LIDs
    for (const Destination& d : graph.destinations_of(to)) {
      for (uint32_t k = 0; k < d.lid_count(); ++k, ++rank) {
        const uint32_t lid = d.base.value + k;
        tables.lfts[graph.node_of(to).value][lid] = d.port;
        for (SwitchId from = 0; from < graph.switch_count(); ++from) {
          if (from == to) continue;
          const std::span<const uint8_t> ports = hops.ports(from, direction[from]);
          tables.lfts[graph.node_of(from).value][lid] = ports[rank % ports.size()];
        }
      }
    }
  }
  log(input.log, LogLevel::info, Subsystem::routing, "torus-2QoS: a {} of {} switches{}", t.shape(), graph.switch_count(),
      remembered   ? std::string(", the last routing's (its coordinates, datelines and sls kept)")
      : t.seed == 0 ? std::string(", found from the cables")
                    : fmt::format(", from seed {} of the torus config", t.seed));
  if (memory_ != nullptr && !remembered) {
    *memory_ = remember_torus(graph, t);
    memory_->config = config_;
  }
  topology_ = std::move(found).value();
  return tables;
}

uint8_t Torus2QosEngine::path_sl(const RoutingInput& input, Lid source, Lid destination) const {
  if (!topology_) return 0;
  const TorusTopology& t = *topology_;
  const SwitchId from = switch_of_lid(input.graph, source);
  const SwitchId to = switch_of_lid(input.graph, destination);
  if (from == kNoSwitch || to == kNoSwitch || from >= t.coord.size() || to >= t.coord.size()) return 0;
  const Coord& a = t.coord[from];
  const Coord& b = t.coord[to];
  uint8_t sl = 0;
  for (unsigned d = 0; d < kTorusDims; ++d) {
    if (!t.wraps[d] || a[d] == b[d]) continue;
    const bool plus = pristine_plus(t, d, a[d], b[d]);
    if (plus ? b[d] < a[d] : b[d] > a[d]) sl = static_cast<uint8_t>(sl | (1u << d));
  }
  return sl;
}

std::optional<std::vector<Sl2VlTable>> Torus2QosEngine::sl2vl(const RoutingInput& input) const {
  if (!topology_) return std::nullopt;
  const RoutingGraph& graph = input.graph;
  const TorusTopology& t = *topology_;
  std::vector<Sl2VlTable> out;
  std::array<uint8_t, 256> dim_of_port{};
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    const NodeIndex node = graph.node_of(v);
    const uint8_t ports = graph.fabric().node(node).num_ports;
    dim_of_port.fill(kNoDirection);
    for (uint32_t e = graph.edge_begin(v); e < graph.edge_begin(v + 1); ++e) {
      if (e < t.edge_dir.size() && t.edge_dir[e] != kNoDirection) dim_of_port[graph.edge_port(e)] = t.edge_dir[e] >> 1;
    }
    for (unsigned o = 1; o <= ports; ++o) {
      Sl2VlTable table;
      table.node = node;
      table.out_port = static_cast<uint8_t>(o);
      for (unsigned sl = 0; sl < 16; ++sl) table.vl_of_sl[sl] = torus_2qos_vl(static_cast<uint8_t>(sl), dim_of_port[o]);
      for (unsigned i = 0; i <= ports; ++i) {
        table.in_port = static_cast<uint8_t>(i);
        out.push_back(table);
      }
    }
  }
  for (const Destination& d : graph.destinations()) {
    if (d.port == 0) continue;
    Sl2VlTable table;
    table.node = d.owner.node;
    table.in_port = table.out_port = d.owner.port;
    for (unsigned sl = 0; sl < 16; ++sl) table.vl_of_sl[sl] = torus_2qos_vl(static_cast<uint8_t>(sl), kNoDirection);
    out.push_back(table);
  }
  return out;
}

}  // namespace ibsm::routing
