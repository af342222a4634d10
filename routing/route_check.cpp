#include "routing/route_check.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "routing/engine.h"
#include "routing/graph.h"
#include "sm/fabric/lft_slices.h"

namespace ibsm::routing {

namespace {


// Where a switch port's cable leads (PairChecker::hop_): another switch by
// number, an endpoint by index with this bit set, or nowhere a packet could
// be delivered (no usable cable, or a port that owns no LID).
constexpr uint32_t kEndpointBit = 0x80000000u;
constexpr uint32_t kDead = kNoIndex;

// What a switch's way toward the current destination LID ends in
// (PairChecker::end_): an endpoint by index, or one of these.
constexpr uint32_t kUnknown = kNoIndex;       // not resolved yet
constexpr uint32_t kOnPath = kNoIndex - 1;    // being resolved: meeting it again is a loop
constexpr uint32_t kLoop = kNoIndex - 2;
constexpr uint32_t kDropped = kNoIndex - 3;   // no route, a bad port, a dead cable, a port without the LID
constexpr uint32_t kAtSwitch = kNoIndex - 4;  // the switch owns the LID: delivered, but to no endpoint

// Destination LIDs whose table entries are staged together: the tables are
// read switch by switch, a chunk of destinations at a time (64 bytes of a
// switch's table are one cache line), then walked destination by destination.
constexpr size_t kStagedDestinations = 64;
// Targets behind one switch checked together on the fast way (at most).
constexpr size_t kForestWidth = 64;

// Target switches searched together (search_batch), and the hop count
// that stands for "not reached".
constexpr size_t kBatch = 64;
constexpr uint8_t kFar = 0xFF;

// Delivered pairs are counted by (hops, shortest) below this many hops.
constexpr uint32_t kStretchBins = 64;

struct Endpoint {
  PortRef port;
  uint16_t base = 0;
  uint8_t lmc = 0;
  bool source = false;   // taken as a source (the stride)
  uint32_t sw = kNoIndex;   // the switch its usable cable leads to
  uint32_t peer = kNoIndex; // the endpoint its usable cable leads to (back to back)
  bool owns(uint32_t lid) const { return lid >= base && lid - base < (1u << lmc); }
};

// One pair destination: a LID of an endpoint.
struct Target {
  uint32_t sw;  // the target's switch, kNoIndex when it hangs off none
  uint16_t lid;
  uint32_t endpoint;
};

class PairChecker {
 public:
  PairChecker(const Fabric& fabric, LftSet lfts, const CheckOptions& options)
      : fabric_(fabric), lfts_(lfts), options_(options), tracer_(fabric, lfts) {
    index_ports();
    index_endpoints();
  }

  CheckSummary run() {
    std::vector<Target> targets;
    for (uint32_t e = 0; e < endpoints_.size(); ++e) {
      const Endpoint& t = endpoints_[e];
      const uint32_t lids = options_.all_lids ? 1u << t.lmc : 1u;
      for (uint32_t i = 0; i < lids; ++i) {
        const auto lid = static_cast<uint16_t>(t.base + i);
        const auto& only = options_.destination_lids;
        if (only && !std::binary_search(only->begin(), only->end(), lid)) continue;
        targets.push_back({t.sw, lid, e});
      }
    }
    // By target switch (one breadth-first search each), then by LID (table
    // entries of neighbouring LIDs share cache lines).
    std::sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) {
      return a.sw != b.sw ? a.sw < b.sw : a.lid != b.lid ? a.lid < b.lid : a.endpoint < b.endpoint;
    });

    end_.assign(switches_.size(), kUnknown);
    dist_.assign(switches_.size(), 0);
    next_.assign(switches_.size(), kNoIndex);
    out_id_.assign(switches_.size(), 0);
    carried_.assign(switches_.size(), 0);
    stage_.resize(switches_.size() * kStagedDestinations);
    // The target switches in target order, searched 64 at a time.
    std::vector<uint32_t> target_switches;
    for (const Target& t : targets) {
      if (t.sw != kNoIndex && (target_switches.empty() || target_switches.back() != t.sw)) target_switches.push_back(t.sw);
    }
    size_t at = 0, searched = SIZE_MAX;  // target_switches[at] is the current target's; the batch searched
    for (size_t begin = 0; begin < targets.size(); begin += kStagedDestinations) {
      const size_t count = std::min(kStagedDestinations, targets.size() - begin);
      const std::span<const Target> chunk = std::span(targets).subspan(begin, count);
      stage(chunk);
      // The chunk's targets a switch at a time: those behind one switch
      // share its search, and most often take the shortest-path fast way.
      for (size_t k = 0, end = 0; k < count; k = end) {
        const Target& t = chunk[k];
        end = k + 1;
        if (t.sw == kNoIndex) {
          check_target(t, k);
          continue;
        }
        while (end < count && end - k < kForestWidth && chunk[end].sw == t.sw) ++end;
        while (target_switches[at] != t.sw) ++at;
        if (at / kBatch != searched) {
          searched = at / kBatch;
          search_batch(std::span(target_switches).subspan(searched * kBatch,
                                                         std::min(kBatch, target_switches.size() - searched * kBatch)));
        }
        slot_ = static_cast<uint32_t>(at % kBatch);
        if (check_shortest_forest(chunk, k, end)) continue;
        for (size_t i = k; i < end; ++i) check_target(chunk[i], i);
      }
    }
    return summarize();
  }

 private:
  uint32_t id(PortRef p) const { return port_base_[p.node.value] + p.port; }

  void index_ports() {
    port_base_.resize(fabric_.node_count() + 1, 0);
    for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
      port_base_[n + 1] = port_base_[n] + fabric_.node(NodeIndex{n}).num_ports + 1u;
    }
    switch_of_.assign(fabric_.node_count(), kNoIndex);
    for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
      const Node& node = fabric_.node(NodeIndex{n});
      if (!node.is_switch()) continue;
      switch_of_[n] = static_cast<uint32_t>(switches_.size());
      switches_.push_back(NodeIndex{n});
      switch_base_.push_back(port_base_[n]);
      ports_.push_back(node.num_ports);
      const Port& p0 = node.port(0);
      for (uint32_t i = 0; p0.base_lid.value != 0 && i < (1u << p0.lmc); ++i) {
        switch_lids_.emplace_back(p0.base_lid.value + i, switch_of_[n]);
      }
    }
    std::sort(switch_lids_.begin(), switch_lids_.end());
    routes_.assign(port_base_.back(), 0);
    slices_ = LftSlices(lfts_, switches_);
  }

  void index_endpoints() {
    std::vector<uint32_t> endpoint_of(port_base_.back(), kNoIndex);
    for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
      const Node& node = fabric_.node(NodeIndex{n});
      if (node.is_switch()) continue;
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const PortRef here{NodeIndex{n}, static_cast<uint8_t>(p)};
        const Port& port = node.port(here.port);
        if (port.base_lid.value == 0) continue;
        endpoint_of[id(here)] = static_cast<uint32_t>(endpoints_.size());
        endpoints_.push_back({here, port.base_lid.value, port.lmc});
      }
    }
    const uint32_t stride = std::max(options_.source_stride, 1u);
    for (uint32_t e = 0; e < endpoints_.size(); ++e) {
      Endpoint& ep = endpoints_[e];
      ep.source = e % stride == 0;
      for (uint32_t i = 0; i < (1u << ep.lmc); ++i) lid_owners_.emplace_back(ep.base + i, e);
      if (!cable_usable(fabric_, ep.port)) continue;
      const Port& port = fabric_.node(ep.port.node).port(ep.port.port);
      ep.sw = switch_of_[port.remote_node.value];
      if (ep.sw == kNoIndex) ep.peer = endpoint_of[id(PortRef{port.remote_node, port.remote_port})];
    }
    std::sort(lid_owners_.begin(), lid_owners_.end());

    // Where each switch port leads.
    hop_.assign(port_base_.back(), kDead);
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      const Node& node = fabric_.node(switches_[s]);
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const PortRef here{switches_[s], static_cast<uint8_t>(p)};
        if (!cable_usable(fabric_, here)) continue;
        const Port& port = node.port(here.port);
        const uint32_t peer = switch_of_[port.remote_node.value];
        if (peer != kNoIndex) {
          hop_[id(here)] = peer;
          switch_links_.push_back(id(here));
          continue;
        }
        const uint32_t e = endpoint_of[id(PortRef{port.remote_node, port.remote_port})];
        if (e != kNoIndex) hop_[id(here)] = kEndpointBit | e;
      }
    }

    // The sources, by the switch they hang off.
    source_begin_.assign(switches_.size() + 1, 0);
    for (uint32_t e = 0; e < endpoints_.size(); ++e) {
      const Endpoint& ep = endpoints_[e];
      if (!ep.source) continue;
      if (ep.sw != kNoIndex) {
        ++source_begin_[ep.sw + 1];
      } else if (ep.peer != kNoIndex) {
        paired_sources_.push_back(e);
      } else {
        dead_sources_.push_back(e);
      }
    }
    for (size_t s = 0; s < switches_.size(); ++s) source_begin_[s + 1] += source_begin_[s];
    sources_at_.resize(source_begin_.back());
    std::vector<uint32_t> fill(source_begin_.begin(), source_begin_.end() - 1);
    for (uint32_t e = 0; e < endpoints_.size(); ++e) {
      if (endpoints_[e].source && endpoints_[e].sw != kNoIndex) sources_at_[fill[endpoints_[e].sw]++] = e;
    }
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      source_count_.push_back(source_begin_[s + 1] - source_begin_[s]);
      if (source_count_.back() > 0) source_switches_.push_back(s);
    }
  }

  // Copies the table entries of a chunk of targets, switch by switch.
  void stage(std::span<const Target> chunk) {
    const uint16_t first = chunk.front().lid;
    bool consecutive = true;
    for (size_t k = 0; k < chunk.size(); ++k) consecutive = consecutive && chunk[k].lid == first + k;
    if (consecutive) return slices_.copy(first, chunk.size(), stage_.data(), kStagedDestinations);
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      for (size_t k = 0; k < chunk.size(); ++k) stage_[s * kStagedDestinations + k] = slices_.at(s, chunk[k].lid);
    }
  }

  // Hop counts over usable switch-to-switch cables from switch `from`.
  // Hops from every switch to each of up to 64 target switches: one
  // bit-parallel breadth-first search (bit j of a switch's word: target j),
  // as routing/shortest_paths.h searches, instead of one search per target.
  // Not that batch itself: it runs on a RoutingGraph, which refuses a fabric
  // with two ports on one LID, and the checker must judge any tables.
  void search_batch(std::span<const uint32_t> targets) {
    const size_t n = switches_.size();
    hops_to_.assign(n * kBatch, kFar);
    bfs_frontier_.assign(n, 0);
    bfs_seen_.assign(n, 0);
    bfs_next_.assign(n, 0);
    for (size_t j = 0; j < targets.size(); ++j) {
      bfs_frontier_[targets[j]] |= uint64_t{1} << j;
      bfs_seen_[targets[j]] |= uint64_t{1} << j;
      hops_to_[targets[j] * kBatch + j] = 0;
    }
    for (uint32_t level = 1; level < kFar; ++level) {
      uint64_t any = 0;
      for (uint32_t s = 0; s < n; ++s) {
        const uint32_t base = port_base_[switches_[s].value];
        uint64_t reached = 0;
        for (uint32_t p = 1; p <= ports_[s]; ++p) {
          const uint32_t t = hop_[base + p];
          if (t < kEndpointBit) reached |= bfs_frontier_[t];
        }
        bfs_next_[s] = reached & ~bfs_seen_[s];
        any |= bfs_next_[s];
      }
      if (any == 0) break;
      for (uint32_t s = 0; s < n; ++s) {
        bfs_seen_[s] |= bfs_next_[s];
        for (uint64_t m = bfs_next_[s]; m != 0; m &= m - 1) {
          hops_to_[s * kBatch + static_cast<uint32_t>(std::countr_zero(m))] = static_cast<uint8_t>(level);
        }
      }
      bfs_frontier_.swap(bfs_next_);
    }
  }
  // Hops from switch s to the current target's switch (slot_ of the batch).
  uint32_t shortest(uint32_t s) const {
    const uint8_t h = hops_to_[size_t{s} * kBatch + slot_];
    return h == kFar ? kNoIndex : h;
  }

  // Where switch s's way to the k-th staged LID ends (end_[s]), and how many
  // cables it crosses (dist_[s]): follows next hops until a switch already
  // resolved, and writes the answer back along the way.
  void resolve(uint32_t s, uint32_t lid, size_t k) {
    path_.clear();
    uint32_t at = s;
    uint32_t end = kDropped;
    uint32_t dist = 0;  // cables from the last switch of path_ on
    while (true) {
      if (end_[at] != kUnknown) {
        if (end_[at] == kOnPath) {
          end = kLoop;
        } else {
          end = end_[at];
          dist = dist_[at] + 1;
        }
        break;
      }
      end_[at] = kOnPath;
      touched_.push_back(at);
      path_.push_back(at);
      const uint8_t out = stage_[at * kStagedDestinations + k];
      if (out == 0 || out == kNoRoute || out > ports_[at]) break;  // dropped
      out_id_[at] = port_base_[switches_[at].value] + out;
      const uint32_t h = hop_[out_id_[at]];
      if (h == kDead) break;
      if (h & kEndpointBit) {
        const uint32_t e = h & ~kEndpointBit;
        if (endpoints_[e].owns(lid)) end = e;
        dist = 1;
        break;
      }
      next_[at] = h;
      at = h;
    }
    for (size_t i = path_.size(); i-- > 0;) {
      end_[path_[i]] = end;
      dist_[path_[i]] = dist++;
    }
  }

  bool excluded(uint32_t e) const { return std::find(excluded_.begin(), excluded_.end(), e) != excluded_.end(); }

  // Traces one failed pair again, for the words.
  void describe(uint32_t source, uint16_t lid) {
    if (summary_.problems.size() >= options_.max_problems) return;
    const PortRef from = endpoints_[source].port;
    const Trace t = tracer_.trace(from, Lid{lid});
    const Guid guid = fabric_.node(from.node).node_guid;
    if (t.outcome == TraceOutcome::delivered) {
      summary_.problems.push_back(fmt::format("{} port {} -> lid {}: delivered to {} port {}", guid, from.port, lid,
                                              fabric_.node(t.destination.node).node_guid, t.destination.port));
    } else {
      summary_.problems.push_back(fmt::format("{} port {} -> lid {}: {}: {}", guid, from.port, lid,
                                              trace_outcome_name(t.outcome), t.reason));
    }
  }

  void delivered(uint64_t n, uint32_t hops, uint32_t shortest) {
    assert(shortest > 0 && shortest <= hops);
    summary_.pairs += n;
    summary_.delivered += n;
    summary_.max_hops = std::max(summary_.max_hops, hops);
    total_hops_ += n * hops;
    // Counted by (hops, shortest) and divided once at the end: a division
    // per source switch and target would cost more than the rest together.
    if (hops < kStretchBins) {
      stretch_bins_[hops * kStretchBins + shortest] += n;
    } else {
      total_stretch_ += static_cast<double>(n) * hops / shortest;
    }
    if (uint64_t{hops} * max_stretch_.second > uint64_t{max_stretch_.first} * shortest) max_stretch_ = {hops, shortest};
    if (hops > shortest) summary_.longer_than_shortest += n;
  }

  // n failed pairs from the sources among `candidates` that are not excluded.
  void failed(uint64_t n, bool loop, std::span<const uint32_t> candidates, uint16_t lid) {
    summary_.pairs += n;
    (loop ? summary_.looping : summary_.unreachable) += n;
    for (uint32_t e : candidates) {
      if (summary_.problems.size() >= options_.max_problems) break;
      if (!excluded(e)) describe(e, lid);
    }
  }

  // Every source to one target LID (the k-th staged).
  void check_target(const Target& target, size_t k) {
    const uint32_t lid = target.lid;
    // The pair's target and any other endpoint owning the LID too (LIDs
    // given twice) are no ordinary sources: the target is no pair with
    // itself, and the others deliver the packet to themselves.
    excluded_.clear();
    excluded_.push_back(target.endpoint);
    const auto owners = std::equal_range(lid_owners_.begin(), lid_owners_.end(), std::pair{lid, 0u},
                                         [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = owners.first; it != owners.second; ++it) {
      if (it->second == target.endpoint || !endpoints_[it->second].source) continue;
      excluded_.push_back(it->second);
      summary_.pairs += 1;
      summary_.unreachable += 1;
      describe(it->second, target.lid);
    }
    size_t dead = dead_sources_.size();
    for (uint32_t e : excluded_) {
      const Endpoint& ep = endpoints_[e];
      if (!ep.source) continue;
      if (ep.sw != kNoIndex) --source_count_[ep.sw];
      if (ep.sw == kNoIndex && ep.peer == kNoIndex) --dead;
    }
    const auto sw_owners = std::equal_range(switch_lids_.begin(), switch_lids_.end(), std::pair{lid, 0u},
                                            [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = sw_owners.first; it != sw_owners.second; ++it) {
      end_[it->second] = kAtSwitch;
      dist_[it->second] = 0;
      touched_.push_back(it->second);
    }

    // The sources behind switches, a switch at a time.
    for (uint32_t s : source_switches_) {
      const uint32_t n = source_count_[s];
      if (n == 0) continue;
      if (end_[s] == kUnknown) resolve(s, lid, k);
      if (end_[s] == target.endpoint) {
        const uint32_t hops = dist_[s] + 1;
        assert(shortest(s) != kNoIndex);
        delivered(n, hops, shortest(s) + 2);
        if (carried_[s] == 0) {
          if (by_dist_.size() <= hops) by_dist_.resize(hops + 1);
          by_dist_[dist_[s]].push_back(s);
          far_ = std::max(far_, dist_[s]);
        }
        carried_[s] += n;
        continue;
      }
      failed(n, end_[s] == kLoop,
             std::span(sources_at_).subspan(source_begin_[s], source_begin_[s + 1] - source_begin_[s]), target.lid);
    }
    check_unswitched_sources(target, dead);

    carry_load();
    for (uint32_t e : excluded_) {
      const Endpoint& ep = endpoints_[e];
      if (ep.source && ep.sw != kNoIndex) ++source_count_[ep.sw];
    }
    for (uint32_t s : touched_) end_[s] = kUnknown;
    touched_.clear();
  }

  // Sources cabled to no switch (excluded_ set for the target): straight to
  // the target, or nowhere; `dead` of them have no usable cable.
  void check_unswitched_sources(const Target& target, size_t dead) {
    for (uint32_t e : paired_sources_) {
      if (excluded(e)) continue;
      if (endpoints_[e].peer == target.endpoint) {
        delivered(1, 1, 1);
      } else {
        failed(1, false, std::span(&e, 1), target.lid);
      }
    }
    if (dead > 0) failed(dead, false, dead_sources_, target.lid);
  }

  // The fast way for the chunk's targets [k0, k1), all behind one switch T:
  // when every switch a hop count from T away forwards each of their LIDs to
  // a switch one hop nearer, and T to the target itself, the routes toward
  // each LID form a shortest-path forest. Then every source is delivered by
  // a shortest route (no walk needed: its hops are its switch's distance
  // plus the two end cables), and the loads gather along the forest from
  // the farthest switches in, the staged entries of all the targets read
  // together switch by switch. Anything else (a LID given twice, a switch
  // LID, a source whose switch cannot reach T, one entry off a shortest
  // path) leaves every target of the group to check_target, with nothing
  // counted: the same sums either way, only slower.
  bool check_shortest_forest(std::span<const Target> chunk, size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k) {
      if (!sole_owner(chunk[k])) return false;
    }
    const uint32_t T = chunk[k0].sw;
    forest_of(T);
    if (forest_far_sources_) return false;
    // Raw pointers: the compiler cannot tell the stores below from the vectors' own.
    const uint32_t* hop = hop_.data();
    const uint8_t* dist = forest_dist_.data();
    uint64_t* routes = routes_.data();
    uint32_t* carried = forest_carried_.data();
    const size_t farthest = forest_order_.size() - 1;  // T, the only switch 0 hops from T
    for (size_t i = 0; i < farthest; ++i) {
      const uint32_t s = forest_order_[i];
      const uint32_t d = dist[s];
      const uint8_t* row = &stage_[s * kStagedDestinations];
      const uint32_t base = switch_base_[s];
      const uint8_t ports = ports_[s];
      for (size_t k = k0; k < k1; ++k) {
        const uint8_t out = row[k];
        if (out == 0 || out == kNoRoute || out > ports) return false;
        const uint32_t h = hop[base + out];
        if (h >= kEndpointBit || dist[h] != d - 1) return false;
      }
    }
    assert(forest_order_[farthest] == T);
    for (size_t k = k0; k < k1; ++k) {
      const uint8_t out = stage_[T * kStagedDestinations + k];
      if (out == 0 || out == kNoRoute || out > ports_[T]) return false;
      if (hop[switch_base_[T] + out] != (kEndpointBit | chunk[k].endpoint)) return false;
    }
    // Every pair delivered: the loads, farthest switches first.
    for (size_t i = 0; i < farthest; ++i) {
      const uint32_t s = forest_order_[i];
      const uint8_t* row = &stage_[s * kStagedDestinations];
      uint32_t* here = &carried[s * kForestWidth];
      const uint32_t base = switch_base_[s];
      const uint32_t own = source_count_[s];
      for (size_t k = k0; k < k1; ++k) {
        const uint32_t c = own + std::exchange(here[k - k0], 0);
        if (c == 0) continue;
        const uint32_t port = base + row[k];
        routes[port] += c;
        carried[hop[port] * kForestWidth + k - k0] += c;
      }
    }
    for (size_t k = k0; k < k1; ++k) {
      const Target& target = chunk[k];
      const uint32_t itself = endpoints_[target.endpoint].source ? 1 : 0;  // no pair with itself, at T
      const uint32_t c = source_count_[T] - itself + std::exchange(carried[T * kForestWidth + k - k0], 0);
      if (c > 0) routes[switch_base_[T] + stage_[T * kStagedDestinations + k]] += c;  // into the target
      for (uint32_t d = 0; d < forest_sources_.size(); ++d) {
        const uint64_t n = forest_sources_[d] - (d == 0 ? itself : 0);
        if (n > 0) delivered(n, d + 2, d + 2);
      }
      excluded_.assign(1, target.endpoint);
      check_unswitched_sources(target, dead_sources_.size());
    }
    return true;
  }

  // Whether the target's endpoint is the only port owning its LID, and no
  // switch owns it.
  bool sole_owner(const Target& t) const {
    const auto by_lid = [](const auto& a, const auto& b) { return a.first < b.first; };
    const auto owners = std::equal_range(lid_owners_.begin(), lid_owners_.end(), std::pair{uint32_t{t.lid}, 0u}, by_lid);
    if (owners.second - owners.first != 1) return false;
    return !std::binary_search(switch_lids_.begin(), switch_lids_.end(), std::pair{uint32_t{t.lid}, 0u}, by_lid);
  }

  // The switches that reach switch T, by hop count from it (slot_ of the
  // searched batch), farthest first; the sources at each hop count; whether
  // a switch with sources cannot reach T at all.
  void forest_of(uint32_t T) {
    if (forest_root_ == T) return;
    forest_root_ = T;
    const uint32_t n = static_cast<uint32_t>(switches_.size());
    forest_dist_.resize(n);
    forest_carried_.resize(size_t{n} * kForestWidth, 0);
    forest_sources_.clear();
    forest_far_sources_ = false;
    std::vector<uint32_t>& at_dist = forest_count_;  // switches per hop count, then where each starts
    at_dist.assign(kFar + 1, 0);
    for (uint32_t s = 0; s < n; ++s) {
      const uint8_t d = hops_to_[size_t{s} * kBatch + slot_];
      forest_dist_[s] = d;
      ++at_dist[d];
      if (source_count_[s] == 0) continue;
      if (d == kFar) {
        forest_far_sources_ = true;
        continue;
      }
      if (forest_sources_.size() <= d) forest_sources_.resize(d + 1u, 0);
      forest_sources_[d] += source_count_[s];
    }
    // Farthest first: counting sort by hop count, descending.
    uint32_t start = 0;
    for (int d = kFar - 1; d >= 0; --d) start += std::exchange(at_dist[d], start);
    forest_order_.resize(start);
    for (uint32_t s = 0; s < n; ++s) {
      if (forest_dist_[s] != kFar) forest_order_[at_dist[forest_dist_[s]]++] = s;
    }
  }

  // Routes per switch port for this target: the sources delivered from each
  // switch, gathered along the forest from the farthest switches in (a
  // switch's next hop is one cable nearer the target).
  void carry_load() {
    for (uint32_t d = far_; d >= 1; --d) {
      for (uint32_t s : by_dist_[d]) {
        const uint64_t c = std::exchange(carried_[s], 0);
        routes_[out_id_[s]] += c;
        if (d == 1) continue;  // its next hop is the target
        const uint32_t t = next_[s];
        assert(dist_[t] == d - 1);
        if (carried_[t] == 0) by_dist_[d - 1].push_back(t);
        carried_[t] += c;
      }
      by_dist_[d].clear();
    }
    far_ = 0;
  }

  CheckSummary summarize() {
    if (summary_.delivered > 0) {
      const double n = static_cast<double>(summary_.delivered);
      summary_.mean_hops = static_cast<double>(total_hops_) / n;
      for (uint32_t h = 1; h < kStretchBins; ++h) {
        for (uint32_t d = 1; d <= h; ++d) {
          const uint64_t count = stretch_bins_[h * kStretchBins + d];
          if (count > 0) total_stretch_ += static_cast<double>(count) * h / d;
        }
      }
      summary_.mean_stretch = total_stretch_ / n;
      summary_.max_stretch = static_cast<double>(max_stretch_.first) / max_stretch_.second;
    }
    summary_.switch_links = switch_links_.size();
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      const uint32_t base = port_base_[switches_[s].value];
      for (uint32_t p = 1; p <= ports_[s]; ++p) {
        const uint32_t h = hop_[base + p];
        if (h == kDead) continue;
        summary_.port_routes.push_back({PortRef{switches_[s], static_cast<uint8_t>(p)}, routes_[base + p],
                                        (h & kEndpointBit) == 0});
      }
    }
    if (!switch_links_.empty()) {
      uint64_t total = 0;
      for (uint32_t c : switch_links_) {
        total += routes_[c];
        summary_.max_link_routes = std::max(summary_.max_link_routes, routes_[c]);
      }
      const double links = static_cast<double>(switch_links_.size());
      summary_.mean_link_routes = static_cast<double>(total) / links;
      double squares = 0;
      for (uint32_t c : switch_links_) {
        const double off = static_cast<double>(routes_[c]) - summary_.mean_link_routes;
        squares += off * off;
      }
      summary_.stddev_link_routes = std::sqrt(squares / links);
    }
    return std::move(summary_);
  }

  const Fabric& fabric_;
  LftSet lfts_;
  const CheckOptions& options_;
  RouteTracer tracer_;  // describes the failed pairs
  LftSlices slices_;    // the switches' rows, by switch number

  std::vector<uint32_t> port_base_;  // by node: the id of its port 0; ports are numbered densely
  std::vector<uint32_t> switch_of_;  // by node: its switch number, or kNoIndex
  std::vector<NodeIndex> switches_;  // by switch number
  std::vector<uint32_t> switch_base_;  // by switch number: the id of its port 0
  std::vector<uint8_t> ports_;       // by switch number: its number of ports
  std::vector<uint32_t> hop_;        // by port id of a switch port: where its cable leads
  std::vector<uint32_t> switch_links_;  // port ids of usable switch-to-switch ports
  std::vector<std::pair<uint32_t, uint32_t>> switch_lids_;  // (LID, switch) for every switch LID
  std::vector<Endpoint> endpoints_;
  std::vector<std::pair<uint32_t, uint32_t>> lid_owners_;  // (LID, endpoint) for every endpoint LID
  std::vector<uint32_t> source_begin_;  // by switch: offsets into sources_at_
  std::vector<uint32_t> sources_at_;    // source endpoints by switch
  std::vector<uint32_t> source_count_;  // by switch: its sources that are pairs with the current target
  std::vector<uint32_t> source_switches_;
  std::vector<uint32_t> paired_sources_;  // cabled to another endpoint
  std::vector<uint32_t> dead_sources_;    // without a usable cable

  // Per target:
  std::vector<uint8_t> stage_;      // [switch * kStagedDestinations + k]: the out-port for the chunk's k-th target
  // [switch * kBatch + j]: hops to the batch's j-th target switch (kFar: none).
  std::vector<uint8_t> hops_to_;
  uint32_t slot_ = 0;  // the current target's switch in the batch
  std::vector<uint64_t> bfs_frontier_, bfs_next_, bfs_seen_;  // search_batch(), by switch
  std::vector<uint32_t> end_;       // by switch: what its way to the LID ends in
  std::vector<uint32_t> dist_;      // by switch: cables on that way
  std::vector<uint32_t> next_;      // by switch: the switch it forwards the LID to
  std::vector<uint32_t> path_;
  std::vector<uint32_t> touched_;   // switches whose end_ is set
  std::vector<uint32_t> excluded_;  // endpoints that are no ordinary source for the target
  std::vector<uint64_t> carried_;   // by switch: delivered sources whose routes cross it
  std::vector<uint32_t> out_id_;    // by switch: the port id it forwards the LID out of
  std::vector<std::vector<uint32_t>> by_dist_;  // switches with carried_ set, by dist_
  uint32_t far_ = 0;                // the highest dist_ in by_dist_
  // check_shortest_forest, for the target switch forest_root_:
  uint32_t forest_root_ = kNoIndex;
  std::vector<uint8_t> forest_dist_;      // by switch: hops to the root (kFar: none)
  std::vector<uint32_t> forest_order_;    // the switches reaching the root, farthest first
  std::vector<uint32_t> forest_count_;    // scratch: switches per hop count
  std::vector<uint64_t> forest_sources_;  // by hop count: the sources there
  bool forest_far_sources_ = false;       // sources at a switch that cannot reach the root
  std::vector<uint32_t> forest_carried_;  // [switch * kForestWidth + k - k0]: sources gathered so far

  std::vector<uint64_t> routes_;  // by port id: delivered routes leaving there
  CheckSummary summary_;
  uint64_t total_hops_ = 0;
  std::vector<uint64_t> stretch_bins_ = std::vector<uint64_t>(kStretchBins * kStretchBins, 0);  // [hops][shortest]
  double total_stretch_ = 0;  // of the pairs beyond the bins, then of all
  std::pair<uint32_t, uint32_t> max_stretch_{0, 1};  // (hops, shortest)
};

}  // namespace

std::string CheckSummary::to_string() const {
  return fmt::format(
      "pairs {}: delivered {}, unreachable {}, looping {}; hops max {} mean {:.2f}; "
      "stretch max {:.2f} mean {:.2f}, {} longer than shortest; "
      "routes per switch link max {} mean {:.1f} stddev {:.1f} over {} links",
      pairs, delivered, unreachable, looping, max_hops, mean_hops, max_stretch, mean_stretch, longer_than_shortest,
      max_link_routes, mean_link_routes, stddev_link_routes, switch_links);
}

CheckSummary check_all_pairs(const Fabric& fabric, LftSet lfts, const CheckOptions& options) {
  return PairChecker(fabric, lfts, options).run();
}

bool promises_deadlock_freedom(std::string_view engine) {
  return engine == "updn" || engine == "dnup" || engine == "ftree" || engine == "dfsssp" || engine == "lash" ||
         engine == "torus-2QoS";
}

CdgOptions engine_vls(const RoutingEngine& engine, const RoutingInput& input) {
  if (!engine.assigns_sls()) return {};
  return engine_vls(engine, input, engine.sl2vl(input));
}

CdgOptions engine_vls(const RoutingEngine& engine, const RoutingInput& input,
                      const std::optional<std::vector<Sl2VlTable>>& tables) {
  CdgOptions options;
  if (!engine.assigns_sls()) return options;
  const Fabric& fabric = input.fabric();
  const auto sl_of = [&engine, &input, &fabric](PortRef source, Lid dlid) -> uint8_t {
    const Lid slid = fabric.node(source.node).port(source.port).base_lid;
    return engine.path_sl(input, slid, dlid) & 0x0F;
  };
  if (!tables) {
    // No tables: the SM's default mapping, SL i on VL i, kept on every cable.
    options.path_vl = sl_of;
    return options;
  }
  // The engine's tables, port pair by port pair (IBA 7.6.6): the VL may
  // change at every hop. A port pair it gave no table for keeps the SL as
  // the VL, as without tables.
  constexpr uint8_t kMissing = 16;
  options.path_sl = sl_of;
  options.sl2vl = [lookup = sl2vl_lookup(fabric, *tables, kMissing)](NodeIndex node, uint8_t in, uint8_t out,
                                                                     uint8_t sl) -> uint8_t {
    const uint8_t vl = lookup(node, in, out, sl);
    return vl == kMissing ? sl : vl;
  };
  return options;
}

bool RouteCheck::ok() const {
  if (!all_delivered()) return false;
  if (!cdg) return repair.has_value();  // a repair's dependencies may go unchecked
  return cdg->acyclic() || !deadlock_free_promised;
}

std::string RouteCheck::to_string() const {
  std::string out = engine.empty() ? "routing check: " : fmt::format("routing check ({}): ", engine);
  if (repair) out += fmt::format("repaired, {}; the other routes as last checked: ", repair->to_string());
  out += fmt::format("{}/{} pairs delivered", pairs.delivered, pairs.pairs);
  if (!pairs.all_delivered()) out += fmt::format(" ({} unreachable, {} looping)", pairs.unreachable, pairs.looping);
  out += fmt::format(", hops max {} mean {:.1f}, stretch max {:.2f}, link routes max {} mean {:.1f} stddev {:.1f}",
                     pairs.max_hops, pairs.mean_hops, pairs.max_stretch, pairs.max_link_routes,
                     pairs.mean_link_routes, pairs.stddev_link_routes);
  if (repair && !cdg) return out + ", cdg not checked after a repair";
  if (!cdg) return out + ", cdg not checked: " + cdg_error;
  // After a repair checked against the kept graph: what it added.
  const std::string kept =
      cdg_update ? fmt::format(" ({} dependencies added to the graph of the last full check{})", cdg_update->added,
                               cdg_update->dropped > 0 ? fmt::format(", {} stale dropped", cdg_update->dropped) : "")
                 : "";
  if (!cdg->acyclic()) return out + ", cdg cycle on " + cdg->cycle_text + kept;
  if (cdg_update) return out + ", cdg acyclic" + kept;
  if (cdg->vls.size() <= 1) return out + ", cdg acyclic";
  std::string vls;
  for (const CdgVlSummary& v : cdg->vls) vls += fmt::format("{}{}", vls.empty() ? "" : ",", v.vl);
  return out + ", cdg acyclic on vls " + vls;
}

RouteCheck check_routes(const Fabric& fabric, LftSet lfts, const RouteCheckOptions& options) {
  RouteCheck check;
  check.engine = options.engine;
  check.deadlock_free_promised = promises_deadlock_freedom(options.engine);
  check.pairs = check_all_pairs(fabric, lfts, options.pairs);
  // Routes to some LIDs only make a partial dependency graph, which proves nothing.
  if (options.pairs.destination_lids) {
    check.cdg_error = "the routes to some LIDs only";
    return check;
  }
  Result<CdgReport> cdg = check_channel_dependencies(fabric, lfts, options.vls);
  if (cdg.ok()) {
    check.cdg = std::move(*cdg);
  } else {
    check.cdg_error = cdg.status().message();
  }
  return check;
}

}  // namespace ibsm::routing
