#include "routing/cdg.h"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>

#include <fmt/format.h>

#include "routing/cdg_memory.h"
#include "routing/engine.h"
#include "routing/graph.h"
#include "sm/fabric/lft_slices.h"

namespace ibsm::routing {

namespace {

constexpr unsigned kVls = 16;
// Destination LIDs whose table entries are staged together: the tables are
// read switch by switch, a chunk of LIDs at a time, then walked LID by LID.
constexpr size_t kStagedLids = 512;

// A CA or router port with a LID cabled to a switch: its injection channel.
struct Injection {
  uint32_t channel;  // its port id
  PortRef owner;
  uint32_t sw;       // the switch it feeds, by switch number
  uint8_t sw_port;   // the port it enters that switch by
  Lid base;
  uint32_t lids;
};

// Dependencies on one VL: deps[c_in] holds the out-ports c_out of the
// switch c_in leads to. Injection channels are kept apart: no dependency
// leads into them, so they are never on a cycle.
struct VlGraph {
  std::vector<PortMask> deps;       // by port id of a switch-to-switch channel
  std::vector<PortMask> injection;  // by injection number
  // Destination LIDs each switch sends out of each switch-to-switch port,
  // for the injection channels (destination-VL mode): [sw * 256 + port].
  std::vector<uint32_t> sent;
};

class CdgBuilder {
 public:
  CdgBuilder(const Fabric& fabric, LftSet lfts, const CdgOptions& options)
      : fabric_(fabric), lfts_(lfts), options_(options) {
    port_base_.resize(fabric.node_count() + 1, 0);
    for (uint32_t n = 0; n < fabric.node_count(); ++n) {
      port_base_[n + 1] = port_base_[n] + fabric.node(NodeIndex{n}).num_ports + 1u;
    }
    switch_of_.assign(fabric.node_count(), kNoIndex);
    for (uint32_t n = 0; n < fabric.node_count(); ++n) {
      if (!fabric.node(NodeIndex{n}).is_switch()) continue;
      switch_of_[n] = static_cast<uint32_t>(switches_.size());
      switches_.push_back(NodeIndex{n});
      switch_base_.push_back(port_base_[n]);
      switch_ports_.push_back(fabric.node(NodeIndex{n}).num_ports);
    }
    slices_ = LftSlices(lfts_, switches_);
    // Where each switch port's cable leads, when it joins two switches.
    next_switch_.assign(port_base_.back(), kNoIndex);
    next_by_port_.assign(switches_.size() * 256, kNoIndex);
    to_switch_ports_.resize(switches_.size());
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      const Node& node = fabric.node(switches_[s]);
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const PortRef here{switches_[s], static_cast<uint8_t>(p)};
        if (!cable_usable(fabric, here)) continue;
        const uint32_t peer = switch_of_[node.port(here.port).remote_node.value];
        if (peer == kNoIndex) continue;
        next_switch_[id(here)] = peer;
        if (p < kNoRoute) {
          next_by_port_[size_t{s} * 256 + p] = peer;
          to_switch_ports_[s].set(static_cast<uint8_t>(p));
        }
        ++channels_;
      }
    }
    // Destination LIDs and injection channels.
    for (uint32_t n = 0; n < fabric.node_count(); ++n) {
      const Node& node = fabric.node(NodeIndex{n});
      const unsigned first = node.is_switch() ? 0 : 1, last = node.is_switch() ? 0 : node.num_ports;
      for (unsigned p = first; p <= last; ++p) {
        const PortRef here{NodeIndex{n}, static_cast<uint8_t>(p)};
        const Port& port = node.port(here.port);
        if (port.base_lid.value == 0) continue;
        const uint32_t count = 1u << port.lmc;
        for (uint32_t i = 0; i < count && port.base_lid.value + i <= Lid::max_unicast; ++i) {
          lids_.push_back(static_cast<uint16_t>(port.base_lid.value + i));
          if (node.is_switch()) switch_lids_.push_back(static_cast<uint16_t>(port.base_lid.value + i));
        }
        if (node.is_switch() || !cable_usable(fabric, here)) continue;
        const uint32_t sw = switch_of_[port.remote_node.value];
        if (sw == kNoIndex) continue;
        injections_.push_back({id(here), here, sw, port.remote_port, port.base_lid, count});
        ++channels_;
      }
    }
    std::sort(lids_.begin(), lids_.end());
    lids_.erase(std::unique(lids_.begin(), lids_.end()), lids_.end());
    std::sort(switch_lids_.begin(), switch_lids_.end());
    injections_at_.resize(switches_.size() + 1, 0);
    std::sort(injections_.begin(), injections_.end(), [](const Injection& a, const Injection& b) {
      return a.sw != b.sw ? a.sw < b.sw : a.channel < b.channel;
    });
    for (const Injection& inj : injections_) ++injections_at_[inj.sw + 1];
    for (size_t s = 0; s < switches_.size(); ++s) injections_at_[s + 1] += injections_at_[s];
  }

  Result<CdgReport> run() {
    stage_.resize(switches_.size() * kStagedLids);
    for (size_t begin = 0; begin < lids_.size(); begin += kStagedLids) {
      const size_t count = std::min(kStagedLids, lids_.size() - begin);
      stage(begin, count);
      if (sl_mode()) {
        for (size_t k = 0; k < count; ++k) IBSM_RETURN_IF_ERROR(destination_by_sl(Lid{lids_[begin + k]}, k));
      } else if (options_.path_vl) {
        for (size_t k = 0; k < count; ++k) IBSM_RETURN_IF_ERROR(destination_by_path(Lid{lids_[begin + k]}, k));
      } else {
        IBSM_RETURN_IF_ERROR(destinations(begin, count));
      }
    }
    if (sl_mode()) return report_by_sl();
    if (!options_.path_vl) injection_by_counts();
    return report();
  }

 private:
  bool sl_mode() const { return options_.path_sl && options_.sl2vl; }

  uint32_t id(PortRef p) const { return port_base_[p.node.value] + p.port; }

  // The out-port switch s's table gives the k-th staged LID.
  uint8_t out(uint32_t s, size_t k) const { return stage_[s * kStagedLids + k]; }

  // The switch-to-switch channel switch s sends the k-th staged LID on, as
  // its port id, or kNoIndex (no route, delivered here, or leaving the switches).
  uint32_t channel_out(uint32_t s, size_t k) const {
    const uint8_t p = out(s, k);
    if (p == 0 || p == kNoRoute || p > switch_ports_[s]) return kNoIndex;
    const uint32_t c = switch_base_[s] + p;
    return next_switch_[c] == kNoIndex ? kNoIndex : c;
  }

  void stage(size_t begin, size_t count) {
    const uint16_t first = lids_[begin];
    if (size_t{lids_[begin + count - 1]} - first + 1 == count) {  // consecutive LIDs: the common case
      return slices_.copy(first, count, stage_.data(), kStagedLids);
    }
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      for (size_t k = 0; k < count; ++k) stage_[s * kStagedLids + k] = slices_.at(s, lids_[begin + k]);
    }
  }

  Result<VlGraph*> graph_of(uint8_t vl) {
    if (vl >= kVls) return invalid_argument_error(fmt::format("vl {} is beyond the 16 vls", vl));
    if (!vls_[vl]) {
      vls_[vl] = std::make_unique<VlGraph>();
      vls_[vl]->deps.resize(port_base_.back());
      vls_[vl]->injection.resize(injections_.size());
      if (!options_.path_vl) vls_[vl]->sent.assign(switches_.size() * 256, 0);
    }
    return vls_[vl].get();
  }

  // A chunk of destination LIDs whose VL depends on the LID alone. Every
  // switch is a source of packets for a CA's LID, so every switch-to-switch
  // hop of the forest toward it carries packets; toward a switch's LID, the
  // hops downstream of a switch with CAs do (mark_carriers). Switch by switch, so that the dependencies
  // written (those of the switch's own out-channels) stay at hand.
  Status destinations(size_t begin, size_t count) {
    for (size_t k = 0; k < count; ++k) {
      const uint8_t vl = options_.destination_vl ? options_.destination_vl(Lid{lids_[begin + k]}) : 0;
      Result<VlGraph*> g = graph_of(vl);
      IBSM_RETURN_IF_ERROR(g.status());
      chunk_graphs_[k] = *g;
    }
    const bool switch_lids = mark_carriers(begin, count);
    const bool one_vl = !options_.destination_vl;
    // The common case (one graph, no switch LID in the chunk) gets a loop
    // of its own, with nothing to look up per LID but the two entries.
    const auto each = [&](auto uniform, auto any_switch_lid) {
      for (uint32_t s = 0; s < switches_.size(); ++s) {
        const uint32_t* next = &next_by_port_[size_t{s} * 256];
        const uint8_t* row = &stage_[s * kStagedLids];
        const uint32_t base = switch_base_[s];
        for (size_t k = 0; k < count; ++k) {
          const uint8_t p = row[k];
          const uint32_t t = next[p];
          if (t == kNoIndex) continue;
          if constexpr (any_switch_lid) {
            if (!carries(s, k)) continue;
          }
          VlGraph& graph = *chunk_graphs_[uniform ? 0 : k];
          ++graph.sent[s * 256 + p];
          // Set whatever t's entry is; bits that are no channel (port 0, no
          // route, a CA's port) are masked off in report().
          graph.deps[base + p].set(stage_[t * kStagedLids + k]);
        }
      }
    };
    if (one_vl && !switch_lids) {
      each(std::true_type{}, std::false_type{});
    } else if (one_vl) {
      each(std::true_type{}, std::true_type{});
    } else {
      each(std::false_type{}, std::true_type{});
    }
    return {};
  }

  // Whether a switch's LID takes packets from switches. Packets between two
  // switches' management ports are SMPs, on VL15, which has no flow-control
  // credits and so cannot take part in a credit loop (IBA 7.6.4, 7.9.4);
  // switches send no other traffic to each other. So a switch's LID draws
  // packets only from CAs and routers, and only the part of its forest of
  // routes that those packets cross carries dependencies. (Without this,
  // min-hop on a fat tree would show cycles made of switch-to-switch
  // management routes that turn down and up again, which no packet on a
  // data VL takes: ibdmchk, tracing CA traffic only, finds none there.)
  bool is_switch_lid(uint16_t lid) const { return std::binary_search(switch_lids_.begin(), switch_lids_.end(), lid); }

  // For the staged LIDs that are switch LIDs: which switches pass packets
  // for them on (those with CAs, and every switch downstream of one).
  // Whether any is.
  bool mark_carriers(size_t begin, size_t count) {
    const size_t n = switches_.size();
    chunk_switch_lid_.assign(count, 0);
    carried_count_ = count;
    if (std::none_of(lids_.begin() + begin, lids_.begin() + begin + count, [&](uint16_t l) { return is_switch_lid(l); })) {
      return false;
    }
    carried_.assign(n * count, 0);
    for (size_t k = 0; k < count; ++k) {
      if (!is_switch_lid(lids_[begin + k])) continue;
      chunk_switch_lid_[k] = 1;
      for (uint32_t s = 0; s < n; ++s) {
        if (injections_at_[s] == injections_at_[s + 1]) continue;  // no CA here
        // Walk the forest until a switch already marked (a loop ends there too).
        for (uint32_t at = s; !carried_[at * count + k];) {
          carried_[at * count + k] = 1;
          const uint32_t in = channel_out(at, k);
          if (in == kNoIndex) break;
          at = next_switch_[in];
        }
      }
    }
    return true;
  }
  bool carries(uint32_t s, size_t k) const { return !chunk_switch_lid_[k] || carried_[s * carried_count_ + k]; }

  // The VL of every (source, dlid) pair: the VLs reaching each switch are
  // carried along the forest of routes toward the LID.
  Status destination_by_path(Lid dlid, size_t k) {
    const size_t n = switches_.size();
    const bool dlid_is_switch = is_switch_lid(dlid.value);
    vl_mask_.assign(n, 0);
    indegree_.assign(n, 0);
    Status bad;
    const auto vl_of = [&](PortRef source) -> uint8_t {
      const uint8_t vl = options_.path_vl(source, dlid);
      if (vl >= kVls && bad.ok()) bad = invalid_argument_error(fmt::format("vl {} is beyond the 16 vls", vl));
      return static_cast<uint8_t>(vl % kVls);
    };
    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t in = channel_out(s, k);
      if (in == kNoIndex) continue;  // delivered here or dropped: its packets take no channel
      // A switch sends nothing but SMPs (VL15) to another switch's LID; see is_switch_lid.
      if (!dlid_is_switch) vl_mask_[s] |= uint16_t{1} << vl_of(PortRef{switches_[s], 0});
      ++indegree_[next_switch_[in]];
      for (uint32_t i = injections_at_[s]; i < injections_at_[s + 1]; ++i) {
        const Injection& inj = injections_[i];
        if (dlid.value >= inj.base.value && dlid.value < inj.base.value + inj.lids) continue;  // its own LID
        const uint8_t vl = vl_of(inj.owner);
        vl_mask_[s] |= uint16_t{1} << vl;
        Result<VlGraph*> g = graph_of(vl);
        IBSM_RETURN_IF_ERROR(g.status());
        (*g)->injection[i].set(out(s, k));
      }
    }
    IBSM_RETURN_IF_ERROR(bad);

    // Leaves first (Kahn), so each switch passes on everything that reaches it.
    order_.clear();
    for (uint32_t s = 0; s < n; ++s) {
      if (indegree_[s] == 0) order_.push_back(s);
    }
    for (size_t head = 0; head < order_.size(); ++head) {
      const uint32_t s = order_[head];
      const uint32_t in = channel_out(s, k);
      if (in == kNoIndex) continue;
      const uint32_t t = next_switch_[in];
      vl_mask_[t] |= vl_mask_[s];
      if (--indegree_[t] == 0) order_.push_back(t);
    }
    if (order_.size() < n) {
      // Tables that loop: spread the VLs around the loops until nothing changes.
      for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t s = 0; s < n; ++s) {
          const uint32_t in = channel_out(s, k);
          if (indegree_[s] == 0 || in == kNoIndex) continue;
          const uint32_t t = next_switch_[in];
          const uint16_t merged = vl_mask_[t] | vl_mask_[s];
          changed = changed || merged != vl_mask_[t];
          vl_mask_[t] = merged;
        }
      }
    }

    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t in = channel_out(s, k);
      if (in == kNoIndex) continue;
      const uint32_t t = next_switch_[in];
      if (channel_out(t, k) == kNoIndex) continue;
      for (uint16_t m = vl_mask_[s]; m != 0; m &= static_cast<uint16_t>(m - 1)) {
        Result<VlGraph*> g = graph_of(static_cast<uint8_t>(std::countr_zero(m)));
        IBSM_RETURN_IF_ERROR(g.status());
        (*g)->deps[in].set(out(t, k));
      }
    }
    return {};
  }

  // Injection channels when the VL depends on the destination only: a CA's
  // packets go everywhere its switch sends any LID but the CA's own, so
  // count per (switch, port) how many LIDs leave there and take away the
  // CA's own.
  void injection_by_counts() {
    struct Own {
      uint8_t vl, port;
    };
    std::vector<Own> own;
    for (uint32_t i = 0; i < injections_.size(); ++i) {
      const Injection& inj = injections_[i];
      const NodeIndex sw = switches_[inj.sw];
      const std::vector<uint8_t>* lft = sw.value < lfts_.size() ? &lfts_[sw.value] : nullptr;
      own.clear();
      for (uint32_t l = inj.base.value; l < inj.base.value + inj.lids; ++l) {
        if (lft == nullptr || l >= lft->size()) continue;
        const Lid lid{static_cast<uint16_t>(l)};
        own.push_back({options_.destination_vl ? options_.destination_vl(lid) : uint8_t{0}, (*lft)[l]});
      }
      const uint32_t base = port_base_[sw.value];
      for (unsigned vl = 0; vl < kVls; ++vl) {
        VlGraph* graph = vls_[vl].get();
        if (graph == nullptr) continue;
        for (unsigned p = 1; p <= fabric_.node(sw).num_ports; ++p) {
          if (next_switch_[base + p] == kNoIndex) continue;
          const uint32_t mine = static_cast<uint32_t>(
              std::count_if(own.begin(), own.end(), [&](const Own& o) { return o.vl == vl && o.port == p; }));
          if (graph->sent[inj.sw * 256 + p] > mine) graph->injection[i].set(static_cast<uint8_t>(p));
        }
      }
    }
  }

  // SL2VL mode. A node of the graph is a (channel, VL) pair: port id * 16 + VL.
  static uint64_t edge_key(uint32_t from, uint8_t from_vl, uint32_t to, uint8_t to_vl) {
    return (uint64_t{from * kVls + from_vl} << 32) | (to * kVls + to_vl);
  }
  void add_edge(uint64_t key) {
    edges_.push_back(key);
    if (edges_.size() >= kEdgeFlush) compact_edges();
  }
  void compact_edges() {
    std::sort(edges_.begin() + static_cast<std::ptrdiff_t>(sorted_edges_), edges_.end());
    std::inplace_merge(edges_.begin(), edges_.begin() + static_cast<std::ptrdiff_t>(sorted_edges_), edges_.end());
    edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
    sorted_edges_ = edges_.size();
  }

  // The SL2VL table's answer, checked.
  uint8_t vl_of(NodeIndex node, uint8_t in, uint8_t out, uint8_t sl) {
    const uint8_t vl = options_.sl2vl(node, in, out, sl);
    if (vl >= kVls && bad_.ok()) bad_ = invalid_argument_error(fmt::format("sl2vl gives vl {}, beyond the 16 vls", vl));
    return static_cast<uint8_t>(vl % kVls);
  }
  uint8_t sl_of(PortRef source, Lid dlid) {
    const uint8_t sl = options_.path_sl(source, dlid);
    if (sl >= kVls && bad_.ok()) bad_ = invalid_argument_error(fmt::format("sl {} is beyond the 16 sls", sl));
    return static_cast<uint8_t>(sl % kVls);
  }

  // One destination LID in SL2VL mode: which (SL, VL) pairs travel on each
  // switch's out-channel toward it, carried along the forest of routes
  // leaves first like destination_by_path, then a dependency from each
  // (channel, VL) into the next switch's out-channel on the VL that switch's
  // table gives the SL for that in-port and out-port.
  Status destination_by_sl(Lid dlid, size_t k) {
    const size_t n = switches_.size();
    const bool dlid_is_switch = is_switch_lid(dlid.value);
    sl_vls_.assign(n, SlVls{});
    indegree_.assign(n, 0);
    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t in = channel_out(s, k);
      if (in == kNoIndex) continue;
      ++indegree_[next_switch_[in]];
      const NodeIndex sw = switches_[s];
      const uint8_t out_port = out(s, k);
      if (!dlid_is_switch) {  // the switch's own packets; see is_switch_lid
        const uint8_t sl = sl_of(PortRef{sw, 0}, dlid);
        sl_vls_[s][sl] |= static_cast<uint16_t>(1u << vl_of(sw, 0, out_port, sl));
      }
      for (uint32_t i = injections_at_[s]; i < injections_at_[s + 1]; ++i) {
        const Injection& inj = injections_[i];
        if (dlid.value >= inj.base.value && dlid.value < inj.base.value + inj.lids) continue;  // its own LID
        const uint8_t sl = sl_of(inj.owner, dlid);
        const uint8_t vl_in = vl_of(inj.owner.node, inj.owner.port, inj.owner.port, sl);
        const uint8_t vl_out = vl_of(sw, inj.sw_port, out_port, sl);
        sl_vls_[s][sl] |= static_cast<uint16_t>(1u << vl_out);
        add_edge(edge_key(inj.channel, vl_in, in, vl_out));
      }
    }
    IBSM_RETURN_IF_ERROR(bad_);

    // What leaves switch s toward t adds to what t sends on.
    const auto pass_on = [&](uint32_t s) {
      const uint32_t in = channel_out(s, k);
      const uint32_t t = next_switch_[in];
      const uint32_t next = channel_out(t, k);
      if (next == kNoIndex) return false;
      const uint8_t arrive = fabric_.node(switches_[s]).port(out(s, k)).remote_port;
      bool changed = false;
      for (unsigned sl = 0; sl < kVls; ++sl) {
        if (sl_vls_[s][sl] == 0) continue;
        const uint16_t bit = static_cast<uint16_t>(1u << vl_of(switches_[t], arrive, out(t, k), static_cast<uint8_t>(sl)));
        changed = changed || (sl_vls_[t][sl] & bit) == 0;
        sl_vls_[t][sl] |= bit;
      }
      return changed;
    };
    order_.clear();
    for (uint32_t s = 0; s < n; ++s) {
      if (indegree_[s] == 0) order_.push_back(s);
    }
    for (size_t head = 0; head < order_.size(); ++head) {
      const uint32_t s = order_[head];
      if (channel_out(s, k) == kNoIndex) continue;
      pass_on(s);
      const uint32_t t = next_switch_[channel_out(s, k)];
      if (--indegree_[t] == 0) order_.push_back(t);
    }
    if (order_.size() < n) {
      // Tables that loop: pass around the loops until nothing changes.
      for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t s = 0; s < n; ++s) {
          if (indegree_[s] != 0 && channel_out(s, k) != kNoIndex) changed = pass_on(s) || changed;
        }
      }
    }

    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t in = channel_out(s, k);
      if (in == kNoIndex) continue;
      const uint32_t t = next_switch_[in];
      const uint32_t next = channel_out(t, k);
      if (next == kNoIndex) continue;
      const uint8_t arrive = fabric_.node(switches_[s]).port(out(s, k)).remote_port;
      for (unsigned sl = 0; sl < kVls; ++sl) {
        const uint16_t vls = sl_vls_[s][sl];
        if (vls == 0) continue;
        const uint8_t vl_out = vl_of(switches_[t], arrive, out(t, k), static_cast<uint8_t>(sl));
        for (uint16_t m = vls; m != 0; m &= static_cast<uint16_t>(m - 1)) {
          add_edge(edge_key(in, static_cast<uint8_t>(std::countr_zero(m)), next, vl_out));
        }
      }
    }
    return bad_;
  }

  // The report of SL2VL mode: Kahn's algorithm over every (channel, VL) at
  // once, and a cycle walked back along predecessors as in CdgMemory::order.
  Result<CdgReport> report_by_sl() {
    compact_edges();
    const uint32_t nodes = port_base_.back() * kVls;
    std::vector<uint32_t> begin(nodes + 1, 0);
    for (uint64_t e : edges_) ++begin[(e >> 32) + 1];
    for (uint32_t v = 0; v < nodes; ++v) begin[v + 1] += begin[v];
    std::vector<uint32_t> indegree(nodes, 0);
    for (uint64_t e : edges_) ++indegree[static_cast<uint32_t>(e)];
    std::vector<uint32_t> queue;
    std::vector<uint8_t> touched(nodes, 0);
    for (uint64_t e : edges_) touched[e >> 32] = touched[static_cast<uint32_t>(e)] = 1;
    uint32_t live = 0;
    for (uint32_t v = 0; v < nodes; ++v) {
      if (!touched[v]) continue;
      ++live;
      if (indegree[v] == 0) queue.push_back(v);
    }
    for (size_t head = 0; head < queue.size(); ++head) {
      const uint32_t v = queue[head];
      for (uint32_t i = begin[v]; i < begin[v + 1]; ++i) {
        const uint32_t w = static_cast<uint32_t>(edges_[i]);
        if (--indegree[w] == 0) queue.push_back(w);
      }
    }
    CdgReport r;
    r.channels = channels_;
    r.dependencies = edges_.size();
    std::array<uint64_t, kVls> per_vl{};
    for (uint64_t e : edges_) ++per_vl[(e >> 32) % kVls];
    std::array<bool, kVls> on_cycle{};
    if (queue.size() < live) {
      std::vector<uint32_t> pred(nodes, kNoIndex);
      uint32_t start = kNoIndex;
      for (uint32_t v = 0; v < nodes; ++v) {
        if (!touched[v] || indegree[v] == 0) continue;
        start = v;
        for (uint32_t i = begin[v]; i < begin[v + 1]; ++i) {
          const uint32_t w = static_cast<uint32_t>(edges_[i]);
          if (indegree[w] != 0) pred[w] = v;
        }
      }
      for (uint32_t v : walk_back(pred, start)) {
        r.cycle.push_back({port_of(v / kVls), static_cast<uint8_t>(v % kVls)});
        on_cycle[v % kVls] = true;
      }
      r.cycle_text = describe_cycle(fabric_, r.cycle);
    }
    for (unsigned vl = 0; vl < kVls; ++vl) {
      if (per_vl[vl] != 0) r.vls.push_back({static_cast<uint8_t>(vl), per_vl[vl], !on_cycle[vl]});
    }
    return r;
  }

  PortRef port_of(uint32_t id) const {
    const auto it = std::upper_bound(port_base_.begin(), port_base_.end(), id);
    const uint32_t node = static_cast<uint32_t>(it - port_base_.begin()) - 1;
    return PortRef{NodeIndex{node}, static_cast<uint8_t>(id - port_base_[node])};
  }

  // Every VL's graph ordered (CdgMemory::order: Kahn's algorithm, a cycle
  // walked back from what it cannot peel off); with keep_graph, VL 0's is
  // kept as it is.
  Result<CdgReport> report() {
    CdgReport r;
    r.channels = channels_;
    const bool keep = options_.keep_graph && !options_.destination_vl && !options_.path_vl;
    for (unsigned vl = 0; vl < kVls; ++vl) {
      VlGraph* graph = vls_[vl].get();
      if (graph == nullptr) continue;
      CdgVlSummary summary{static_cast<uint8_t>(vl), 0, true};
      mask_to_channels(graph->deps);
      for (const PortMask& m : graph->deps) summary.dependencies += m.count();
      for (const PortMask& m : graph->injection) summary.dependencies += m.count();
      if (summary.dependencies == 0) continue;
      std::shared_ptr<CdgMemory> channels = channel_graph(std::move(graph->deps));
      const std::vector<uint32_t> cycle = channels->order();
      summary.acyclic = cycle.empty();
      if (!cycle.empty() && r.cycle.empty()) {
        for (uint32_t c : cycle) r.cycle.push_back({port_of(c), static_cast<uint8_t>(vl)});
        r.cycle_text = describe_cycle(fabric_, r.cycle);
      }
      r.dependencies += summary.dependencies;
      r.vls.push_back(summary);
      if (keep && vl == 0) r.memory = std::move(channels);
    }
    if (keep) {
      if (!r.memory) {  // no dependency at all
        r.memory = channel_graph(std::vector<PortMask>(port_base_.back()));
        r.memory->order();
      }
      // Keyed by GUID for the repairs to come (routing/cdg_memory.h); with a
      // cycle it stays unordered, and the next update looks for it again.
      for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
        const Node& node = fabric_.node(NodeIndex{n});
        r.memory->nodes[node.node_guid.value] = {port_base_[n], node.num_ports};
      }
    }
    return r;
  }

  // Keeps of each channel's dependencies those into channels: out-ports of
  // the switch it leads to that lead to switches (destinations() sets any).
  void mask_to_channels(std::vector<PortMask>& deps) const {
    for (uint32_t c = 0; c < deps.size(); ++c) {
      if (next_switch_[c] == kNoIndex) continue;
      deps[c] = deps[c] & to_switch_ports_[next_switch_[c]];
    }
  }

  // Switch-to-switch channels by port id with `deps` (moved in), unordered.
  std::shared_ptr<CdgMemory> channel_graph(std::vector<PortMask> deps) const {
    auto m = std::make_shared<CdgMemory>();
    m->target.assign(port_base_.back(), kNoIndex);
    for (uint32_t c = 0; c < port_base_.back(); ++c) {
      if (next_switch_[c] != kNoIndex) m->target[c] = switch_base_[next_switch_[c]];
    }
    m->deps = std::move(deps);
    return m;
  }

  const Fabric& fabric_;
  LftSet lfts_;
  const CdgOptions& options_;
  LftSlices slices_;  // the switches' rows, by switch number
  std::vector<uint32_t> port_base_;    // by node: the id of its port 0; ports are numbered densely
  std::vector<uint32_t> switch_of_;    // by node: its switch number, or kNoIndex
  std::vector<NodeIndex> switches_;    // by switch number
  std::vector<uint32_t> switch_base_;  // by switch number: the id of its port 0
  std::vector<uint8_t> switch_ports_;  // by switch number: its number of ports
  std::array<VlGraph*, kStagedLids> chunk_graphs_{};  // by LID of the chunk: its VL's graph
  std::vector<uint32_t> next_switch_;  // by port id: the switch its cable leads to, for switch-to-switch cables
  std::vector<uint32_t> next_by_port_;  // the same [switch * 256 + port], kNoIndex for any port that is none
  std::vector<PortMask> to_switch_ports_;  // by switch: its ports whose cables lead to switches
  std::vector<Injection> injections_;  // by switch, then port id
  std::vector<uint32_t> injections_at_;  // by switch: offsets into injections_
  std::vector<uint16_t> lids_;         // every destination LID, ascending
  std::vector<uint16_t> switch_lids_;  // the switches' LIDs, ascending
  std::vector<uint8_t> chunk_switch_lid_;  // by staged LID: a switch's
  std::vector<uint8_t> carried_;           // [switch * carried_count_ + staged LID]
  size_t carried_count_ = 0;
  uint64_t channels_ = 0;
  std::vector<uint8_t> stage_;         // [switch * kStagedLids + k]: the out-port for the k-th LID of the chunk
  std::array<std::unique_ptr<VlGraph>, kVls> vls_;
  // Per destination in path-VL mode, by switch:
  std::vector<uint16_t> vl_mask_;   // the VLs of the packets passing through
  std::vector<uint32_t> indegree_;  // switches sending the LID to it
  std::vector<uint32_t> order_;
  // SL2VL mode: by switch, per SL the VLs of the packets on its out-channel.
  using SlVls = std::array<uint16_t, kVls>;
  std::vector<SlVls> sl_vls_;
  static constexpr size_t kEdgeFlush = size_t{1} << 22;
  std::vector<uint64_t> edges_;  // edge_key()s; the first sorted_edges_ sorted and unique
  size_t sorted_edges_ = 0;
  Status bad_;
};

}  // namespace

std::string describe_cycle(const Fabric& fabric, std::span<const CdgChannel> cycle) {
  if (cycle.empty()) return {};
  const auto channel = [&](const CdgChannel& c) {
    const Node& node = fabric.node(c.from.node);
    return node.name.empty() ? fmt::format("{} port {}", node.node_guid, c.from.port)
                             : fmt::format("{} ({}) port {}", node.node_guid, node.name, c.from.port);
  };
  const bool one_vl = std::all_of(cycle.begin(), cycle.end(), [&](const CdgChannel& c) { return c.vl == cycle.front().vl; });
  const auto hop = [&](const CdgChannel& c) { return one_vl ? channel(c) : fmt::format("{} vl {}", channel(c), c.vl); };
  std::string out = one_vl ? fmt::format("vl {}: ", cycle.front().vl) : std::string("vls: ");
  for (const CdgChannel& c : cycle) out += hop(c) + " -> ";
  out += hop(cycle.front());
  return out;
}

std::string CdgReport::to_string() const {
  std::string vl_list;
  for (const CdgVlSummary& v : vls) vl_list += fmt::format("{}{}", vl_list.empty() ? "" : ",", v.vl);
  const std::string head = fmt::format("channels {}, dependencies {} on vl {}", channels, dependencies,
                                       vl_list.empty() ? "-" : vl_list);
  return acyclic() ? head + ": acyclic" : fmt::format("{}: cycle on {}", head, cycle_text);
}

Result<CdgReport> check_channel_dependencies(const Fabric& fabric, LftSet lfts, const CdgOptions& options) {
  return CdgBuilder(fabric, lfts, options).run();
}

}  // namespace ibsm::routing

namespace ibsm::routing {

std::function<uint8_t(NodeIndex, uint8_t, uint8_t, uint8_t)> sl2vl_lookup(const Fabric& fabric,
                                                                           std::span<const Sl2VlTable> tables,
                                                                           uint8_t missing) {
  // By node: (in_port * 256 + out_port) -> index into the tables, sorted.
  struct Key {
    uint32_t node;
    uint16_t ports;
    uint32_t table;
    bool operator<(const Key& o) const { return node != o.node ? node < o.node : ports < o.ports; }
  };
  auto keys = std::make_shared<std::vector<Key>>();
  auto vls = std::make_shared<std::vector<std::array<uint8_t, 16>>>();
  keys->reserve(tables.size());
  vls->reserve(tables.size());
  for (const Sl2VlTable& t : tables) {
    if (!t.node.valid() || t.node.value >= fabric.node_count()) continue;
    keys->push_back({t.node.value, static_cast<uint16_t>(t.in_port * 256u + t.out_port), static_cast<uint32_t>(vls->size())});
    vls->push_back(t.vl_of_sl);
  }
  std::sort(keys->begin(), keys->end());
  return [keys, vls, missing](NodeIndex node, uint8_t in, uint8_t out, uint8_t sl) -> uint8_t {
    const Key probe{node.value, static_cast<uint16_t>(in * 256u + out), 0};
    const auto it = std::lower_bound(keys->begin(), keys->end(), probe);
    if (it == keys->end() || it->node != probe.node || it->ports != probe.ports) return missing;
    return (*vls)[it->table][sl % 16];
  };
}

}  // namespace ibsm::routing
