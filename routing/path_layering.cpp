#include "routing/path_layering.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "routing/cdg.h"
#include "routing/graph.h"

namespace ibsm::routing {

namespace {

constexpr uint32_t kNoChannel = UINT32_MAX;

// The paths of a set of tables over a graph, their channel dependencies, and
// the layers they are spread over. A channel is a directed switch-to-switch
// edge (its edge index); a dependency is a channel followed by one of the
// out-edges of the switch it leads to, numbered dep_base_[e] + that out-edge's
// rank among the switch's out-edges.
class Layering {
 public:
  Layering(const RoutingGraph& graph, const UnicastTables& tables) : graph_(graph), tables_(tables) {
    const uint32_t switches = graph.switch_count();
    const uint32_t edges = graph.edge_count();
    port_base_.resize(switches + 1, 0);
    for (SwitchId sw = 0; sw < switches; ++sw) {
      port_base_[sw + 1] = port_base_[sw] + graph.fabric().node(graph.node_of(sw)).num_ports + 1u;
    }
    port_edge_.assign(port_base_.back(), kNoChannel);
    dep_base_.resize(edges + 1, 0);
    for (SwitchId sw = 0; sw < switches; ++sw) {
      for (uint32_t e = graph.edge_begin(sw); e < graph.edge_begin(sw + 1); ++e) {
        port_edge_[port_base_[sw] + graph.edge_port(e)] = e;
      }
    }
    for (uint32_t e = 0; e < edges; ++e) {
      const SwitchId v = graph.edge_target(e);
      dep_base_[e + 1] = dep_base_[e] + (graph.edge_begin(v + 1) - graph.edge_begin(v));
    }
    row_.resize(switches);
    has_ca_.assign(switches, 0);
    for (const Destination& d : graph.destinations()) {
      if (d.port != 0) has_ca_[d.sw] = 1;
    }
  }

  // Indexes every path with a dependency, then layers them. Returns the
  // layers used, or how many it would take beyond `budget` (budget + 1).
  uint32_t run(uint8_t budget) {
    index_paths();
    uint8_t layer = 0;
    while (true) {
      if (layer > 0) count_layer(layer);
      const uint64_t moved = break_cycles(layer);
      if (moved == 0) return layer + 1u;
      if (layer + 1u >= budget) return budget + 1u;
      ++layer;
    }
  }

  size_t paths() const { return path_source_.size(); }
  SwitchId source(size_t p) const { return path_source_[p]; }
  uint16_t lid(size_t p) const { return path_lid_[p]; }
  uint8_t layer(size_t p) const { return layer_[p]; }

 private:
  // The channel switch `sw` sends `lid` on, or kNoChannel when the LID leaves
  // the switches there, is delivered there, or has no route.
  uint32_t next_channel(SwitchId sw, uint16_t lid) const {
    const std::vector<uint8_t>& lft = tables_.lfts[graph_.node_of(sw).value];
    if (lid >= lft.size()) return kNoChannel;
    const uint8_t port = lft[lid];
    if (port == 0 || port == kNoRoute || port_base_[sw] + port >= port_base_[sw + 1]) return kNoChannel;
    return port_edge_[port_base_[sw] + port];
  }

  // Every switch's next_channel() for `lid` into row_. Paths are visited
  // destination by destination, so one row serves all the paths to a LID,
  // and a walk reads one small array instead of a table per switch.
  void load_row(uint16_t lid) {
    if (row_lid_ == lid) return;
    row_lid_ = lid;
    for (SwitchId sw = 0; sw < graph_.switch_count(); ++sw) row_[sw] = next_channel(sw, lid);
  }

  uint32_t dependency(uint32_t from, uint32_t to) const {
    return dep_base_[from] + (to - graph_.edge_begin(graph_.edge_target(from)));
  }

  // The channels of the path from `sw` to `lid` into walk_; a loop (which
  // sssp's tables never have) is cut after as many channels as switches.
  void walk(SwitchId sw, uint16_t lid) {
    load_row(lid);
    walk_.clear();
    for (uint32_t c = row_[sw]; c != kNoChannel && walk_.size() < graph_.switch_count(); c = row_[graph_.edge_target(c)]) {
      walk_.push_back(c);
    }
  }

  // Calls visit(source switch, lid) for every path that makes a dependency,
  // with its channels in walk_, in one fixed order.
  template <typename Visit>
  void for_each_path(Visit visit) {
    for (const Destination& d : graph_.destinations()) {
      for (uint32_t k = 0; k < d.lid_count(); ++k) {
        const auto lid = static_cast<uint16_t>(d.base.value + k);
        for (SwitchId s = 0; s < graph_.switch_count(); ++s) {
          // A switch LID draws only CA traffic (see dfsssp.h).
          if (s == d.sw || (d.port == 0 && !has_ca_[s])) continue;
          walk(s, lid);
          if (walk_.size() >= 2) visit(s, lid);
        }
      }
    }
  }

  // count_ for the paths on `layer`.
  void count_layer(uint8_t layer) {
    count_.assign(dep_base_.back(), 0);
    for (size_t p = 0; p < path_source_.size(); ++p) {
      if (layer_[p] != layer) continue;
      for (uint32_t i = deps_begin_[p]; i < deps_begin_[p + 1]; ++i) ++count_[deps_[i]];
    }
  }

  // The paths, all on layer 0, with the dependencies each makes (one walk
  // each), then by dependency the paths making it (compressed rows both,
  // each holding every dependency of every path once), and count_ for
  // layer 0. Keeping a path's own dependencies spares walking it again
  // through the tables when it moves or its layer is counted.
  void index_paths() {
    const uint32_t deps = dep_base_.back();
    deps_begin_.assign(1, 0);
    for_each_path([&](SwitchId s, uint16_t lid) {
      path_source_.push_back(s);
      path_lid_.push_back(lid);
      for (size_t i = 0; i + 1 < walk_.size(); ++i) deps_.push_back(dependency(walk_[i], walk_[i + 1]));
      deps_begin_.push_back(static_cast<uint32_t>(deps_.size()));
    });
    count_.assign(deps, 0);
    for (uint32_t d : deps_) ++count_[d];
    path_begin_.assign(deps + 1, 0);
    for (uint32_t d = 0; d < deps; ++d) path_begin_[d + 1] = path_begin_[d] + count_[d];
    paths_of_.resize(deps_.size());
    std::vector<uint32_t> fill(path_begin_.begin(), path_begin_.end() - 1);
    for (uint32_t p = 0; p < path_source_.size(); ++p) {
      for (uint32_t i = deps_begin_[p]; i < deps_begin_[p + 1]; ++i) paths_of_[fill[deps_[i]]++] = p;
    }
    layer_.assign(path_source_.size(), 0);
  }

  // Moves every path of `layer` making dependency `dep` to the next layer,
  // with the dependencies it makes. Returns how many moved.
  uint64_t move_paths(uint32_t dep, uint8_t layer) {
    uint64_t moved = 0;
    for (uint32_t i = path_begin_[dep]; i < path_begin_[dep + 1]; ++i) {
      const uint32_t p = paths_of_[i];
      if (layer_[p] != layer) continue;
      layer_[p] = static_cast<uint8_t>(layer + 1);
      ++moved;
      for (uint32_t k = deps_begin_[p]; k < deps_begin_[p + 1]; ++k) --count_[deps_[k]];
    }
    return moved;
  }

  // Depth-first search over the dependencies of `layer` (count_), cutting
  // every cycle it meets (dfsssp.h). Returns the paths moved to the next
  // layer.
  uint64_t break_cycles(uint8_t layer) {
    const uint32_t edges = graph_.edge_count();
    enum : uint8_t { kWhite, kGray, kBlack };
    std::vector<uint8_t> color(edges, kWhite);
    std::vector<uint32_t> depth(edges, kNoChannel);  // a gray channel's place on the stack
    std::vector<uint32_t> stack, next_rank;     // channels, and the next out-edge rank to try from each
    uint64_t moved = 0;
    const auto push = [&](uint32_t c) {
      color[c] = kGray;
      depth[c] = static_cast<uint32_t>(stack.size());
      stack.push_back(c);
      next_rank.push_back(0);
    };
    const auto pop = [&](uint8_t to) {
      color[stack.back()] = to;
      depth[stack.back()] = kNoChannel;
      stack.pop_back();
      next_rank.pop_back();
    };
    for (uint32_t root = 0; root < edges; ++root) {
      if (color[root] != kWhite) continue;
      push(root);
      while (!stack.empty()) {
        const uint32_t c = stack.back();
        const SwitchId v = graph_.edge_target(c);
        const uint32_t first = graph_.edge_begin(v), out_degree = graph_.edge_begin(v + 1) - first;
        uint32_t rank = next_rank.back();
        while (rank < out_degree && count_[dep_base_[c] + rank] == 0) ++rank;
        if (rank == out_degree) {
          pop(kBlack);
          continue;
        }
        const uint32_t to = first + rank;
        if (color[to] == kBlack) {
          next_rank.back() = rank + 1;
          continue;
        }
        if (color[to] == kWhite) {
          next_rank.back() = rank + 1;
          push(to);
          continue;
        }
        // A cycle: stack[depth[to]] .. c, then back to `to`. Cut the
        // dependency the fewest paths make.
        uint32_t cut = dep_base_[c] + rank;
        for (size_t i = depth[to]; i + 1 < stack.size(); ++i) {
          const uint32_t d = dependency(stack[i], stack[i + 1]);
          if (count_[d] < count_[cut]) cut = d;
        }
        next_rank.back() = rank;  // look at this dependency again: it may be gone
        moved += move_paths(cut, layer);
        // The paths moved may have made dependencies the stack was built
        // along: unwind to above the lowest one gone, so that every channel
        // left gray still leads to the next by a dependency of this layer.
        for (size_t i = 0; i + 1 < stack.size(); ++i) {
          if (count_[dependency(stack[i], stack[i + 1])] != 0) continue;
          while (stack.size() > i + 1) pop(kWhite);
          break;
        }
      }
    }
    return moved;
  }

  const RoutingGraph& graph_;
  const UnicastTables& tables_;
  std::vector<uint32_t> port_base_;  // by switch: offset of its port 0 in port_edge_
  std::vector<uint32_t> port_edge_;  // by (switch, port): the edge leaving there, or kNoChannel
  std::vector<uint32_t> dep_base_;   // by edge: its first dependency's number
  std::vector<uint8_t> has_ca_;      // by switch
  std::vector<SwitchId> path_source_;  // by path
  std::vector<uint16_t> path_lid_;     // by path
  std::vector<uint8_t> layer_;         // by path
  std::vector<uint32_t> path_begin_;   // by dependency: offsets into paths_of_
  std::vector<uint32_t> paths_of_;     // path numbers, by dependency
  std::vector<uint32_t> deps_begin_;   // by path: offsets into deps_
  std::vector<uint32_t> deps_;         // dependencies, by path
  std::vector<uint32_t> count_;        // by dependency: paths of the current layer making it
  std::vector<uint32_t> walk_;
  uint32_t row_lid_ = UINT32_MAX;      // the LID row_ holds, if any
  std::vector<uint32_t> row_;          // by switch: next_channel(switch, row_lid_)
};

}  // namespace

uint8_t PathLayers::sl(Lid source, Lid destination) const {
  if (sl_.empty() || source.value >= lids_ || destination.value >= lids_) return 0;
  const uint32_t sw = source_switch_[source.value];
  return sw == kNoChannel ? 0 : sl_[size_t{sw} * lids_ + destination.value];
}

Result<PathLayers> layer_paths(const RoutingGraph& graph, const UnicastTables& tables, uint8_t budget,
                               std::string_view engine) {
  PathLayers out;
  out.lids_ = graph.max_lid() + 1u;
  out.source_switch_.assign(out.lids_, kNoChannel);
  for (const Destination& d : graph.destinations()) {
    for (uint32_t k = 0; k < d.lid_count() && d.base.value + k < out.lids_; ++k) {
      out.source_switch_[d.base.value + k] = d.sw;
    }
  }
  // Most fabrics' shortest paths (every fat tree's) have no credit loop at
  // all: one look at the whole graph spares indexing the paths.
  Result<CdgReport> whole = check_channel_dependencies(graph.fabric(), tables.lfts);
  if (!whole.ok()) return whole.status();
  if (whole->acyclic()) return out;
  Layering layering(graph, tables);
  const uint32_t layers = layering.run(budget);
  if (layers > budget) {
    return failed_precondition_error(
        fmt::format("{}: the shortest paths need more layers (VLs) than the VL budget of {} (max_op_vls and "
                    "the ports' VLCap) to be free of credit loops",
                    engine, budget));
  }
  out.layers_ = static_cast<uint8_t>(layers);
  if (out.layers_ > 1) out.sl_.assign(size_t{graph.switch_count()} * out.lids_, 0);
  for (size_t p = 0; p < layering.paths(); ++p) {
    if (layering.layer(p) == 0) continue;
    out.sl_[size_t{layering.source(p)} * out.lids_ + layering.lid(p)] = layering.layer(p);
    ++out.moved_;
  }
  return out;
}

}  // namespace ibsm::routing
