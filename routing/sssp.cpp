#include "routing/sssp.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace ibsm::routing {

namespace {

constexpr uint64_t kUnreachedCost = UINT64_MAX;
constexpr uint32_t kNoEdge = UINT32_MAX;
constexpr uint32_t kUnreachedHops = UINT32_MAX;

// Routes every destination LID of a graph, one search each, and
// writes the tables. Every array is sized once and reused by every search.
//
// Edges are searched backward: the search starts at the destination's
// switch u and reaches a neighbour v through u's out-edge e = (u -> v); the
// route it finds is v's channel back to u, which leaves v on e's remote
// port. So the weights are kept by the index of e (weight_[e] is the weight
// of the channel target(e) -> source(e)), and the inner loop reads them in
// edge order.
class SsspRouter {
 public:
  SsspRouter(const RoutingGraph& graph, UnicastTables& tables) : graph_(graph), switches_(graph.switch_count()) {
    const uint32_t edges = graph.edge_count();
    lft_.resize(switches_);
    lft_size_.resize(switches_);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      lft_[sw] = tables.lfts[graph.node_of(sw).value].data();
      lft_size_[sw] = tables.lfts[graph.node_of(sw).value].size();
    }

    edge_source_.resize(edges);
    arrive_port_.resize(edges);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      for (uint32_t e = graph.edge_begin(sw); e < graph.edge_begin(sw + 1); ++e) edge_source_[e] = sw;
    }
    const SwitchGraph& g = graph.graph();
    for (const auto e : boost::make_iterator_range(boost::edges(g))) {
      arrive_port_[boost::get(boost::edge_index, g, e)] = g[e].remote_port;
    }
    // The channel leaving switch v on port q is the reversed edge e = (u -> v)
    // with arrive_port_[e] == q: channel_edge_[port_base_[v] + q].
    port_base_.assign(switches_ + 1, 0);
    for (uint32_t e = 0; e < edges; ++e) {
      const SwitchId v = graph.edge_target(e);
      port_base_[v + 1] = std::max<uint32_t>(port_base_[v + 1], uint32_t{arrive_port_[e]} + 1);
    }
    for (SwitchId sw = 0; sw < switches_; ++sw) port_base_[sw + 1] += port_base_[sw];
    channel_edge_.assign(port_base_.back(), kNoEdge);
    for (uint32_t e = 0; e < edges; ++e) channel_edge_[port_base_[graph.edge_target(e)] + arrive_port_[e]] = e;

    // Sources: endpoint ports (one each, whatever their LMC); data LIDs:
    // every LID of those ports.
    sources_.assign(switches_, 0);
    uint64_t endpoint_ports = 0;
    uint32_t most_lids = 1;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      for (const Destination& d : graph.destinations_of(sw)) {
        most_lids = std::max(most_lids, d.lid_count());
        if (d.port == 0) continue;
        ++sources_[sw];
        ++endpoint_ports;
      }
    }
    // One LID adds at most `endpoint_ports` to a channel; the penalty
    // outweighs a few LIDs' worth of imbalance between alternatives.
    penalty_ = 4 * std::max<uint64_t>(endpoint_ports, 1);
    weight_.assign(edges, 0);

    dist_.assign(switches_, kUnreachedCost);
    hops_.assign(switches_, kUnreachedHops);
    via_.assign(switches_, kNoEdge);
    carried_.assign(switches_, 0);
    order_.reserve(switches_);
    level_edges_.reserve(edges);
    chunk_capacity_ = std::max<size_t>(kChunkLids, most_lids);
    staging_.resize(chunk_capacity_ * switches_);
    chunk_lids_.reserve(chunk_capacity_);
  }

  // Routes every destination; then up to `reroute_passes` times rips each
  // endpoint's routes up and routes them again over the loads all the
  // others left. The first pass routed the early destinations over a nearly
  // empty fabric, blind to what came after them. A pass that leaves the
  // busiest channel no lighter is undone, and ends the passes: each search
  // minimises the load summed along a path, not the greatest, so a pass can
  // also make the busiest channel busier (a fat tree with failed cables).
  void run(unsigned reroute_passes) {
    for (const Destination& d : graph_.destinations()) route_destination(d);
    flush();
    uint64_t busiest = busiest_load();
    std::vector<std::vector<uint8_t>> before;
    for (unsigned pass = 0; pass < reroute_passes && busiest > 0; ++pass) {
      before.resize(switches_);
      for (SwitchId sw = 0; sw < switches_; ++sw) before[sw].assign(lft_[sw], lft_[sw] + lft_size_[sw]);
      for (const Destination& d : graph_.destinations()) {
        if (d.port == 0) continue;  // a switch's own LIDs carry no endpoint's load
        for (uint32_t k = 0; k < d.lid_count(); ++k) rip_up(d, static_cast<uint16_t>(d.base.value + k));
        route_destination(d);
      }
      flush();
      const uint64_t now = busiest_load();
      if (now >= busiest) {
        for (SwitchId sw = 0; sw < switches_; ++sw) std::copy(before[sw].begin(), before[sw].end(), lft_[sw]);
        return;
      }
      busiest = now;
    }
  }

 private:
  static constexpr size_t kChunkLids = 1024;  // LIDs staged before they are written to the tables

  // The in-tree toward `root` over the reversed edges: fills dist_, via_
  // and order_. A route is first of all minimal in hops, and among those
  // the one with the least load summed along it (ties by the lowest port of
  // the switch choosing). So only the edges of the root's hop levels
  // (from one level into the next) matter, taken level by level: every
  // switch's distance is final before its own edges are. O(those edges),
  // with no priority queue.
  void search(SwitchId root) {
    if (levels_root_ != root) find_hop_levels(root);
    for (SwitchId sw : order_) dist_[sw] = kUnreachedCost;
    dist_[root] = 0;
    via_[root] = kNoEdge;
    for (const LevelEdge& l : level_edges_) {
      const uint64_t d = dist_[l.from] + weight_[l.edge];
      if (d < dist_[l.to] || (d == dist_[l.to] && arrive_port_[l.edge] < arrive_port_[via_[l.to]])) {
        dist_[l.to] = d;  // lighter, or as light on a lower port of l.to
        via_[l.to] = l.edge;
      }
    }
  }

  // The hop levels around `root`, which the loads do not change: order_
  // (breadth first, the root first) and level_edges_ (every edge from a
  // switch into the next level, in order_'s order of their sources). The
  // destinations come switch by switch, so one root's levels serve all its
  // LIDs.
  void find_hop_levels(SwitchId root) {
    levels_root_ = root;
    for (SwitchId sw : order_) hops_[sw] = kUnreachedHops;
    order_.clear();
    level_edges_.clear();
    hops_[root] = 0;
    order_.push_back(root);
    for (size_t i = 0; i < order_.size(); ++i) {
      const SwitchId u = order_[i];
      const uint32_t next_hops = hops_[u] + 1;
      const uint32_t end = graph_.edge_begin(u + 1);
      for (uint32_t e = graph_.edge_begin(u); e < end; ++e) {
        const SwitchId v = graph_.edge_target(e);
        if (hops_[v] == kUnreachedHops) {
          hops_[v] = next_hops;
          order_.push_back(v);
        }
        if (hops_[v] == next_hops) level_edges_.push_back({u, v, e});
      }
    }
  }

  // The most endpoint routes on one channel (no penalty is left between
  // destinations).
  uint64_t busiest_load() const { return weight_.empty() ? 0 : *std::max_element(weight_.begin(), weight_.end()); }

  void route_destination(const Destination& d) {
    if (chunk_lids_.size() + d.lid_count() > chunk_capacity_) flush();
    penalized_.clear();
    for (uint32_t k = 0; k < d.lid_count(); ++k) {
      const bool last = k + 1 == d.lid_count();
      route_lid(d, static_cast<uint16_t>(d.base.value + k), !last);
    }
    // The penalties only keep one port's LIDs apart.
    for (uint32_t e : penalized_) weight_[e] -= penalty_;
  }

  // Takes the loads of `lid`'s routes (as its table column holds them) off
  // the channels, as route_lid put them on: every route is minimal in hops,
  // so the column's tree runs from each hop level of the root into the one
  // before, and a reverse pass over the levels sees every switch after all
  // switches routed through it. (The levels are the ones route_lid needs
  // next, for the same root.)
  void rip_up(const Destination& d, uint16_t lid) {
    if (levels_root_ != d.sw) find_hop_levels(d.sw);
    for (SwitchId sw : order_) carried_[sw] = sources_[sw];
    for (size_t i = order_.size(); i-- > 1;) {
      const SwitchId sw = order_[i];
      const uint8_t port = lft_[sw][lid];
      assert(port_base_[sw] + port < port_base_[sw + 1]);  // route_lid routed every switch of the levels
      const uint32_t e = channel_edge_[port_base_[sw] + port];
      assert(weight_[e] >= carried_[sw]);
      weight_[e] -= carried_[sw];
      carried_[edge_source_[e]] += carried_[sw];
    }
  }

  // Routes one LID of `d`: search, table column, loads; with `penalize`
  // the LID's channels also weigh a penalty until the port is done.
  void route_lid(const Destination& d, uint16_t lid, bool penalize) {
    search(d.sw);

    const size_t slot = chunk_lids_.size();
    chunk_lids_.push_back(lid);
    uint8_t* column = &staging_[slot * switches_];
    std::fill(column, column + switches_, kNoRoute);
    column[d.sw] = d.port;
    for (size_t i = 1; i < order_.size(); ++i) {
      const SwitchId sw = order_[i];
      column[sw] = arrive_port_[via_[sw]];
    }

    // Every switch's packets for the LID follow its channel toward the
    // root, carrying those of the switches farther out: a reverse pass in
    // search order sees every switch after all switches routed through it.
    if (d.port != 0) {
      for (SwitchId sw : order_) carried_[sw] = sources_[sw];
      for (size_t i = order_.size(); i-- > 1;) {
        const SwitchId sw = order_[i];
        const uint32_t e = via_[sw];
        weight_[e] += carried_[sw];
        carried_[edge_source_[e]] += carried_[sw];
      }
    }
    if (penalize) {
      for (size_t i = 1; i < order_.size(); ++i) {
        const uint32_t e = via_[order_[i]];
        weight_[e] += penalty_;
        penalized_.push_back(e);
      }
    }
  }

  // Writes the staged LIDs into the tables, one switch's table at a time.
  void flush() {
    const size_t lids = chunk_lids_.size();
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      uint8_t* table = lft_[sw];
      for (size_t slot = 0; slot < lids; ++slot) table[chunk_lids_[slot]] = staging_[slot * switches_ + sw];
    }
    chunk_lids_.clear();
  }

  const RoutingGraph& graph_;
  const uint32_t switches_;
  std::vector<uint8_t*> lft_;     // by switch: its table
  std::vector<size_t> lft_size_;  // by switch: its table's entries

  std::vector<SwitchId> edge_source_;  // by edge index
  std::vector<uint8_t> arrive_port_;   // by edge index (u -> v): v's port toward u
  std::vector<uint32_t> sources_;      // by switch: endpoint ports hanging off it
  std::vector<uint32_t> port_base_;    // by switch: where its ports start in channel_edge_
  std::vector<uint32_t> channel_edge_; // by (switch, port): the reversed edge of the channel leaving there
  uint64_t penalty_ = 1;
  std::vector<uint64_t> weight_;       // by edge index e: the load (and penalties) of the channel target(e) -> source(e)
  std::vector<uint32_t> penalized_;    // edges carrying a penalty for the current port

  // The search.
  struct LevelEdge {
    SwitchId from, to;  // to is one hop farther from the root
    uint32_t edge;
  };
  SwitchId levels_root_ = kNoSwitch;   // the root hops_, order_ and level_edges_ are for
  std::vector<uint32_t> hops_;         // by switch: channels to the root
  std::vector<SwitchId> order_;        // switches reached, by hops, the root first
  std::vector<LevelEdge> level_edges_;
  std::vector<uint64_t> dist_;     // by switch: the load summed along its route
  std::vector<uint32_t> via_;      // by switch: the edge it was reached through (its channel reversed)
  std::vector<uint64_t> carried_;  // by switch: sources whose packets reach it

  // The chunk: staging_[slot * switches_ + sw] is switch sw's port for LID chunk_lids_[slot].
  size_t chunk_capacity_ = 0;
  std::vector<uint8_t> staging_;
  std::vector<uint16_t> chunk_lids_;
};

}  // namespace

Result<UnicastTables> SsspEngine::compute(const RoutingInput& input) {
  const RoutingGraph& graph = input.graph;
  if (graph.switch_count() == 0) return failed_precondition_error("sssp: the fabric has no switch to route");
  UnicastTables tables = UnicastTables::unrouted(graph);
  SsspRouter(graph, tables).run(options_.reroute_passes);
  log(input.log, LogLevel::info, Subsystem::routing, "sssp: routed {} destination(s) over {} switch(es)",
      graph.destinations().size(), graph.switch_count());
  return tables;
}

}  // namespace ibsm::routing
