#include "routing/cdg_memory.h"

#include <algorithm>
#include <cstring>

#include "routing/graph.h"

namespace ibsm::routing {

std::vector<uint32_t> CdgMemory::order() {
  const uint32_t ids = static_cast<uint32_t>(target.size());
  std::vector<uint32_t> indegree(ids, 0);
  uint32_t channels = 0;
  const auto for_each_next = [&](uint32_t c, auto&& visit) {
    for_each_port(deps[c], [&](uint8_t p) {
      const uint32_t next = target[c] + p;
      if (next < ids && target[next] != kNoIndex) visit(next);
    });
  };
  for (uint32_t c = 0; c < ids; ++c) {
    if (target[c] == kNoIndex) continue;
    ++channels;
    for_each_next(c, [&](uint32_t next) { ++indegree[next]; });
  }
  std::vector<uint32_t> queue;
  queue.reserve(channels);
  for (uint32_t c = 0; c < ids; ++c) {
    if (target[c] != kNoIndex && indegree[c] == 0) queue.push_back(c);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    for_each_next(queue[head], [&](uint32_t next) {
      if (--indegree[next] == 0) queue.push_back(next);
    });
  }
  if (queue.size() == channels) {
    rank.assign(ids, kNoIndex);
    for (uint32_t i = 0; i < queue.size(); ++i) rank[queue[i]] = i;
    ordered = true;
    return {};
  }
  ordered = false;
  // Every channel left has a predecessor left.
  std::vector<uint32_t> pred(ids, kNoIndex);
  uint32_t at = kNoIndex;
  for (uint32_t c = 0; c < ids; ++c) {
    if (target[c] == kNoIndex || indegree[c] == 0) continue;
    at = c;
    for_each_next(c, [&](uint32_t next) {
      if (indegree[next] != 0) pred[next] = c;
    });
  }
  return walk_back(pred, at);
}

std::vector<uint32_t> walk_back(const std::vector<uint32_t>& pred, uint32_t start) {
  std::vector<uint32_t> seen_at(pred.size(), kNoIndex);
  std::vector<uint32_t> walk;
  uint32_t at = start;
  while (seen_at[at] == kNoIndex) {
    seen_at[at] = static_cast<uint32_t>(walk.size());
    walk.push_back(at);
    at = pred[at];
  }
  std::vector<uint32_t> cycle(walk.begin() + seen_at[at], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // predecessors were walked backwards
  return cycle;
}

namespace {

// One update: the fabric now, its nodes' channel ids in the memory, and the
// dependencies found new.
class Update {
 public:
  Update(CdgMemory& memory, const Fabric& now, const SharedLfts& repaired)
      : m_(memory), now_(now), lfts_(repaired) {}

  // The channel ids of now's nodes; false when one is unknown or grew.
  bool map_nodes() {
    base_.assign(now_.node_count(), kNoIndex);
    for (uint32_t n = 0; n < now_.node_count(); ++n) {
      const Node& node = now_.node(NodeIndex{n});
      const auto it = m_.nodes.find(node.node_guid.value);
      if (it == m_.nodes.end() || node.num_ports > it->second.ports) return false;
      base_[n] = it->second.base;
    }
    return true;
  }

  // Each switch port's cable now; a channel whose cable leads elsewhere or
  // nowhere loses the dependencies it had (they were of the old cable).
  void update_targets(CdgUpdate& u) {
    is_switch_lid_.clear();
    has_ca_.assign(now_.node_count(), 0);
    peer_.assign(m_.target.size(), kNoIndex);
    rows_.assign(now_.node_count(), Row{});
    for (uint32_t n = 0; n < now_.node_count(); ++n) {
      const Node& node = now_.node(NodeIndex{n});
      if (!node.is_switch()) continue;
      const LftRow& lft = lfts_[n];
      rows_[n] = {lft.data(), static_cast<uint32_t>(lft.size()), node.num_ports};
      const Port& p0 = node.port(0);
      for (uint32_t i = 0; p0.base_lid.value != 0 && i < (1u << p0.lmc); ++i) {
        const uint32_t lid = p0.base_lid.value + i;
        if (lid >= is_switch_lid_.size()) is_switch_lid_.resize(lid + 1, 0);
        is_switch_lid_[lid] = 1;
      }
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        const PortRef here{NodeIndex{n}, p};
        uint32_t to = kNoIndex;
        if (cable_usable(now_, here)) {
          const NodeIndex peer = node.port(p).remote_node;
          if (now_.node(peer).is_switch()) {
            to = base_[peer.value];
          } else if (now_.node(peer).port(node.port(p).remote_port).base_lid.value != 0) {
            has_ca_[n] = 1;
          }
        }
        const uint32_t c = base_[n] + p;
        if (to != kNoIndex) peer_[c] = node.port(p).remote_node.value;
        if (m_.target[c] == to) continue;
        m_.target[c] = to;
        m_.deps[c] = PortMask{};
        ++u.changed_channels;
        if (to != kNoIndex) changed_channels_.push_back(here);
      }
    }
  }

  // The out-port switch `sw` gives `lid`, when it leads over a switch-to-
  // switch cable (else 0).
  uint8_t switch_out(NodeIndex sw, uint32_t lid) const {
    const Row& row = rows_[sw.value];
    if (lid >= row.size) return 0;
    const uint8_t p = row.entries[lid];
    if (p == 0 || p > row.ports || m_.target[base_[sw.value] + p] == kNoIndex) return 0;
    return p;
  }
  // The node at the far end of switch port `p`, a usable switch-to-switch cable.
  NodeIndex peer(NodeIndex sw, uint8_t p) const { return NodeIndex{peer_[base_[sw.value] + p]}; }
  bool is_switch_lid(uint32_t lid) const { return lid < is_switch_lid_.size() && is_switch_lid_[lid]; }

  // The switch port of now's fabric a channel id stands for (node invalid
  // for a node now gone).
  PortRef port_of(uint32_t id) {
    if (by_base_.empty()) {
      for (uint32_t n = 0; n < base_.size(); ++n) by_base_.emplace_back(base_[n], n);
      std::sort(by_base_.begin(), by_base_.end());
    }
    const auto it = std::upper_bound(by_base_.begin(), by_base_.end(), std::pair{id, UINT32_MAX});
    if (it == by_base_.begin()) return {};
    const auto [base, node] = *std::prev(it);
    if (id - base > now_.node(NodeIndex{node}).num_ports) return {};
    return PortRef{NodeIndex{node}, static_cast<uint8_t>(id - base)};
  }

  // After the additions: orders the memory; on a cycle, the dependencies of
  // each of its channels are taken again from the tables (the stale ones
  // drop out) and the memory ordered again, until it is acyclic or a cycle
  // is all real.
  void settle(CdgUpdate& u) {
    if (!against_order_ && m_.ordered) return;
    u.reordered = true;
    for (int round = 0; round < kSettleRounds; ++round) {
      const std::vector<uint32_t> cycle = m_.order();
      if (cycle.empty()) return;
      bool real = true;
      for (size_t i = 0; i < cycle.size(); ++i) {
        const uint32_t c = cycle[i];
        const PortMask made = still_made(c, m_.deps[c]);
        u.dropped += minus(m_.deps[c], made).count();
        m_.deps[c] = made;
        real = real && made.test(static_cast<uint8_t>(cycle[(i + 1) % cycle.size()] - m_.target[c]));
      }
      if (real) {
        u.acyclic = false;
        for (uint32_t c : cycle) u.cycle.push_back({port_of(c), 0});
        return;
      }
    }
    u.acyclic = false;  // not settled: the caller builds the graph afresh
  }

  void add(uint32_t channel, uint8_t out, CdgUpdate& u) {
    PortMask& deps = m_.deps[channel];
    if (deps.test(out)) return;
    deps.set(out);
    ++u.added;
    const uint32_t next = m_.target[channel] + out;
    if (!m_.ordered || m_.rank[channel] == kNoIndex || m_.rank[next] == kNoIndex ||
        m_.rank[channel] >= m_.rank[next]) {
      against_order_ = true;
    }
  }

  // A changed entry of switch `sw` for an end port's LID: the dependency
  // out of it, and those into it from neighbours that send the LID here.
  // (Every switch sends packets to an end port's LID, so these are all
  // the entry takes part in.)
  void end_port_entry(NodeIndex sw, uint32_t lid, CdgUpdate& u) {
    const Node& node = now_.node(sw);
    const uint8_t out = switch_out(sw, lid);
    if (out == 0) return;
    const uint8_t next = switch_out(peer(sw, out), lid);
    if (next != 0) add(base_[sw.value] + out, next, u);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      if (m_.target[base_[sw.value] + p] == kNoIndex) continue;
      const NodeIndex from = peer(sw, p);
      const uint8_t back = node.port(p).remote_port;
      if (switch_out(from, lid) == back) add(base_[from.value] + back, out, u);
    }
  }

  // A switch's LID draws packets only from switches with end ports and
  // those downstream of them (routing/cdg.h), which a change upstream may
  // alter: its dependencies are all taken again, one walk per switch with
  // end ports.
  void switch_lid(uint32_t lid, CdgUpdate& u) {
    mark_carriers(lid);
    for (uint32_t n = 0; n < now_.node_count(); ++n) {
      if (!carried(NodeIndex{n})) continue;
      const NodeIndex at{n};
      const uint8_t out = switch_out(at, lid);
      if (out == 0) continue;
      const uint8_t next = switch_out(peer(at, out), lid);
      if (next != 0) add(base_[n] + out, next, u);
    }
  }
  // The switches that pass packets for switch LID `lid` on: carried(n).
  void mark_carriers(uint32_t lid) {
    if (carried_lid_ == lid) return;
    carried_lid_ = lid;
    if (carried_.empty()) {
      carried_.assign(now_.node_count(), 0);
      for (uint32_t n = 0; n < now_.node_count(); ++n) {
        if (has_ca_[n]) ca_switches_.push_back(NodeIndex{n});
      }
    }
    ++stamp_;
    for (const NodeIndex start : ca_switches_) {
      for (NodeIndex at = start; carried_[at.value] != stamp_;) {
        carried_[at.value] = stamp_;
        const uint8_t out = switch_out(at, lid);
        if (out == 0) break;
        at = peer(at, out);
      }
    }
  }
  bool carried(NodeIndex n) const { return carried_[n.value] == stamp_; }

  void run(const SharedLfts& given, CdgUpdate& u) {
    std::vector<uint32_t> switch_lids;
    const auto entry = [&](NodeIndex sw, uint32_t lid) {
      if (is_switch_lid(lid)) {
        switch_lids.push_back(lid);
      } else {
        end_port_entry(sw, lid, u);
      }
    };
    static const LftRow kNone;
    asked_.assign(m_.target.size(), PortMask{});
    for (uint32_t n = 0; n < now_.node_count(); ++n) {
      if (!now_.node(NodeIndex{n}).is_switch() || (n < given.size() && lfts_.same_row(n, given, n))) continue;
      const LftRow& row = lfts_[n];
      const LftRow& was = n < given.size() ? given[n] : kNone;
      for (uint32_t lid = 1; lid < row.size(); ++lid) {
        // 64 entries (a cache line) compared at once.
        if (lid % 64 == 0 && lid + 64 <= row.size() && lid + 64 <= was.size() &&
            std::memcmp(row.data() + lid, was.data() + lid, 64) == 0) {
          lid += 63;
          continue;
        }
        if (lid < was.size() && row[lid] == was[lid]) continue;
        ++u.changed_entries;
        entry(NodeIndex{n}, lid);
        if (lid < was.size()) suspect(NodeIndex{n}, lid, was[lid]);
      }
    }
    // Every LID sent over a cable that now leads elsewhere, by an entry
    // that did not change (those that did are done).
    for (const PortRef c : changed_channels_) {
      const LftRow& row = lfts_[c.node.value];
      const LftRow& was = c.node.value < given.size() ? given[c.node.value] : kNone;
      for (uint32_t lid = 1; lid < row.size(); ++lid) {
        if (row[lid] == c.port && lid < was.size() && was[lid] == c.port) entry(c.node, lid);
      }
    }
    std::sort(switch_lids.begin(), switch_lids.end());
    switch_lids.erase(std::unique(switch_lids.begin(), switch_lids.end()), switch_lids.end());
    for (uint32_t lid : switch_lids) switch_lid(lid, u);
    for (uint32_t c : suspects_) {
      // A channel's suspects together: one pass over its row.
      const PortMask asked = asked_[c] & m_.deps[c];
      if (asked.empty()) continue;
      const PortMask gone = minus(asked, still_made(c, asked));
      u.dropped += gone.count();
      m_.deps[c] = minus(m_.deps[c], gone);
    }
    settle(u);
  }

  // Which of the dependencies `asked` from channel `c` (out-ports of the
  // switch it leads to) the repaired tables still make. One pass over the
  // channel's row, which stops once each is found; a dependency only
  // switch LIDs make needs their carriers.
  PortMask still_made(uint32_t c, const PortMask& asked) {
    PortMask found;
    const PortRef from = port_of(c);
    if (!from.node.valid() || m_.target[c] == kNoIndex) return found;
    const NodeIndex to = peer(from.node, from.port);
    const LftRow& here = lfts_[from.node.value];
    const LftRow& there = lfts_[to.value];
    const uint32_t end = static_cast<uint32_t>(std::min(here.size(), there.size()));
    bool by_switch_lids = false;
    for (uint32_t lid = 1; lid < end; ++lid) {
      if (here[lid] != from.port || !asked.test(there[lid]) || found.test(there[lid])) continue;
      if (is_switch_lid(lid)) {
        by_switch_lids = true;
        continue;
      }
      found.set(there[lid]);
      if (found == asked) return found;
    }
    for (uint32_t lid = 1; by_switch_lids && lid < end; ++lid) {
      if (here[lid] != from.port || !asked.test(there[lid]) || found.test(there[lid]) || !is_switch_lid(lid)) continue;
      mark_carriers(lid);
      if (carried(from.node)) found.set(there[lid]);
    }
    return found;
  }

  // The channels whose dependencies an entry of `sw` for `lid` that was
  // `old` may have made alone: the old channel out, and the channels into
  // `sw` of the neighbours that send the LID here.
  void suspect(NodeIndex sw, uint32_t lid, uint8_t old) {
    const Node& node = now_.node(sw);
    if (old == 0 || old > node.num_ports || m_.target[base_[sw.value] + old] == kNoIndex) return;
    const uint32_t channel = base_[sw.value] + old;
    // Out of the old channel: on from the switch it leads to, as the given
    // tables sent the LID there (that switch's entry may have changed too:
    // every dependency of the channel is a suspect then).
    ask(channel, m_.deps[channel]);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      if (m_.target[base_[sw.value] + p] == kNoIndex) continue;
      const NodeIndex from = peer(sw, p);
      const uint8_t back = node.port(p).remote_port;
      if (switch_out(from, lid) != back) continue;
      PortMask one;
      one.set(old);
      ask(base_[from.value] + back, one);
    }
  }
  void ask(uint32_t channel, const PortMask& outs) {
    PortMask& asked = asked_[channel];
    if (asked.empty() && !outs.empty()) suspects_.push_back(channel);
    asked = asked | outs;
  }

 private:
  CdgMemory& m_;
  const Fabric& now_;
  const SharedLfts& lfts_;
  std::vector<uint32_t> base_;           // by node of now: its channel id of port 0
  // By node: a switch's table and ports, at hand (the walks read them at
  // every hop).
  struct Row {
    const uint8_t* entries = nullptr;
    uint32_t size = 0;
    uint8_t ports = 0;
  };
  std::vector<Row> rows_;
  std::vector<uint32_t> peer_;           // by channel id: the node its cable leads to (switch channels)
  std::vector<uint8_t> is_switch_lid_;   // by LID
  std::vector<uint8_t> has_ca_;          // by node: a switch with an end port cabled to it
  std::vector<uint32_t> carried_;        // mark_carriers: by node, stamp_ when carried
  uint32_t stamp_ = 0;
  uint32_t carried_lid_ = kNoIndex;      // the LID carried_ is of
  std::vector<NodeIndex> ca_switches_;   // the switches with has_ca_
  // Dependencies that a changed entry may have made alone: by channel id
  // the out-ports asked about, and the channels with any.
  std::vector<PortMask> asked_;
  std::vector<uint32_t> suspects_;
  std::vector<std::pair<uint32_t, uint32_t>> by_base_;  // port_of: (channel id of port 0, node), sorted
  // Rounds of taking a cycle's dependencies again before building the graph
  // afresh: each is an ordering of the whole memory (at 42k LIDs, some 5% of
  // building it afresh: bench/reroute.sh).
  static constexpr int kSettleRounds = 8;
  std::vector<PortRef> changed_channels_;  // switch ports whose cable now leads to another switch
  bool against_order_ = false;
};

}  // namespace

std::optional<CdgUpdate> update_cdg_memory(CdgMemory& memory, const Fabric& now, const SharedLfts& given,
                                           const SharedLfts& repaired) {
  Update update(memory, now, repaired);
  if (!update.map_nodes()) return std::nullopt;
  CdgUpdate u;
  update.update_targets(u);
  update.run(given, u);
  return u;
}

CdgReport memory_report(std::shared_ptr<CdgMemory> memory, const Fabric& now, const CdgUpdate& update) {
  CdgReport r;
  for (uint32_t c = 0; c < memory->target.size(); ++c) {
    if (memory->target[c] == kNoIndex) continue;
    ++r.channels;
    r.dependencies += memory->deps[c].count();
  }
  r.cycle = update.cycle;
  r.cycle_text = describe_cycle(now, r.cycle);
  if (r.dependencies > 0) r.vls.push_back({0, r.dependencies, update.acyclic});
  r.memory = std::move(memory);
  return r;
}

}  // namespace ibsm::routing
