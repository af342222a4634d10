#include "routing/route_repair.h"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "routing/shortest_paths.h"

namespace ibsm::routing {

namespace {

constexpr uint16_t kNoBit = UINT16_MAX;
constexpr uint16_t kFarHops = UINT16_MAX;
// Up to this many switches with changed out-edges (both ends of 4 cables),
// the repair searches only toward the destinations whose distances moved;
// beyond, a storm, every destination (each end costs one search per
// neighbour).
constexpr size_t kNarrowEnds = 8;

Guid guid_of(const RoutingGraph& g, NodeIndex node) { return g.fabric().node(node).node_guid; }

bool same_destination(const RoutingGraph& a, const Destination& x, const RoutingGraph& b, const Destination& y) {
  return x.base == y.base && x.lmc == y.lmc && x.sw == y.sw && x.port == y.port && x.owner.port == y.owner.port &&
         guid_of(a, x.owner.node) == guid_of(b, y.owner.node);
}

// The repair of one set of tables (see route_repair.h).
class Repair {
 public:
  Repair(const RoutingGraph& before, const RoutingGraph& now, SharedLfts tables)
      : before_(before), now_(now), switches_(now.switch_count()), lids_(size_t{now.max_lid()} + 1) {
    out_.lfts = std::move(tables);
    rows_.resize(switches_);
    for (SwitchId sw = 0; sw < switches_; ++sw) rows_[sw] = out_.lfts[now.node_of(sw).value].data();
    owned_.assign(switches_, nullptr);
    // Each switch's ports as bits of its out-edges, now and before (the
    // same switch ids: the same switches in GUID order).
    now_bit_.assign(size_t{switches_} * 256, kNoBit);
    before_bit_.assign(size_t{switches_} * 256, kNoBit);
    same_edges_.assign(switches_, true);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      for (uint32_t e = now.edge_begin(sw); e < now.edge_begin(sw + 1); ++e) {
        now_bit_[size_t{sw} * 256 + now.edge_port(e)] = static_cast<uint16_t>(e - now.edge_begin(sw));
      }
      for (uint32_t e = before.edge_begin(sw); e < before.edge_begin(sw + 1); ++e) {
        before_bit_[size_t{sw} * 256 + before.edge_port(e)] = static_cast<uint16_t>(e - before.edge_begin(sw));
      }
      const uint32_t degree = now.edge_begin(sw + 1) - now.edge_begin(sw);
      same_edges_[sw] = degree == before.edge_begin(sw + 1) - before.edge_begin(sw);
      for (uint32_t b = 0; same_edges_[sw] && b < degree; ++b) {
        const uint32_t e = now.edge_begin(sw) + b, o = before.edge_begin(sw) + b;
        same_edges_[sw] = now.edge_port(e) == before.edge_port(o) && now.edge_target(e) == before.edge_target(o);
      }
    }
    near_change_.assign(switches_, false);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      if (same_edges_[sw]) continue;
      near_change_[sw] = true;
      for (uint32_t e = now.edge_begin(sw); e < now.edge_begin(sw + 1); ++e) near_change_[now.edge_target(e)] = true;
      for (uint32_t e = before.edge_begin(sw); e < before.edge_begin(sw + 1); ++e) {
        near_change_[before.edge_target(e)] = true;
      }
    }
    used_.resize(switches_);
    changed_.assign(lids_, false);
    // Who can hand a switch packets: its own endpoints, and each neighbour
    // over the port that leads here.
    has_endpoints_.assign(switches_, false);
    for (const Destination& d : now.destinations()) {
      if (d.port != 0) has_endpoints_[d.sw] = true;
    }
    feeders_.resize(switches_);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      const Node& node = now.fabric().node(now.node_of(sw));
      for (uint32_t e = now.edge_begin(sw); e < now.edge_begin(sw + 1); ++e) {
        feeders_[sw].emplace_back(now.edge_target(e), node.port(now.edge_port(e)).remote_port);
      }
    }
    data_.assign(lids_, 0);
    for (const Destination& d : now.destinations()) {
      for (uint32_t k = 0; d.port != 0 && k < d.lid_count(); ++k) data_[d.base.value + k] = 1;
    }
  }

  RepairedTables run(bool search_all) {
    // The ends of the changed cables: the switches whose out-edges differ.
    std::vector<SwitchId> ends;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      if (!same_edges_[sw]) ends.push_back(sw);
    }
    // A few changed cables move the distances to few destinations (none
    // where another path as short remains): only their batches are
    // searched. Toward every other destination only the ends' out-edges on
    // paths change, and those come from the distances of the ends'
    // neighbours. On a 42k-LID fat tree a pull searches 2 batches of 55.
    const bool narrow = !search_all && ends.size() <= kNarrowEnds;
    std::vector<EndHops> end_hops;
    if (narrow) {
      find_moved(ends);
      for (SwitchId sw : ends) end_hops.push_back(hops_around(sw));
    }
    // In narrow mode the destinations that moved are searched up front, 64
    // to a search wherever their numbers lie (on a k=34 pull some 100 of
    // 3,468, spread over 37 runs of 64: 74 searches became 4). The mends
    // below still go run by run, switch by switch, in the order a search of
    // every run would take, so the tables are the same as search_all's.
    if (narrow) search_moved();
    // Made at the first run searched (their buffers are some MB at 42k LIDs).
    std::optional<ShortestPathBatch> searched_now, searched_before;
    for (SwitchId first = 0; first < switches_; first += PathBatch::kWidth) {
      const uint32_t count = std::min(PathBatch::kWidth, switches_ - first);
      if (narrow) {
        mend_run(first, count, end_hops);
        continue;
      }
      if (!searched_now) {
        searched_now.emplace(now_);
        searched_before.emplace(before_);
      }
      ShortestPathBatch& paths = *searched_now;
      ShortestPathBatch& old_paths = *searched_before;
      paths.search(first, count, false);
      old_paths.search(first, count, false);
      const uint64_t all = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
      for (SwitchId sw = 0; sw < switches_; ++sw) {
        // The destinations toward which sw's out-edges on paths are not as
        // before. For the others every entry still is on a path (the tables
        // were this engine's for `before`) and no port is new: most
        // (switch, destination) pairs end here.
        uint64_t differ = all;
        if (same_edges_[sw]) differ = differing(paths, old_paths, sw, all);
        for (uint64_t js = differ & ~(first <= sw && sw < first + count ? uint64_t{1} << (sw - first) : 0); js != 0;
             js &= js - 1) {
          const uint32_t j = static_cast<uint32_t>(std::countr_zero(js));
          mask_of(paths, now_, sw, j, mask_);
          mask_of(old_paths, before_, sw, j, old_mask_);
          mend(paths.destination(j), sw);
        }
      }
    }
    for (size_t lid = 0; lid < lids_; ++lid) {
      if (changed_[lid]) out_.changed_lids.push_back(static_cast<uint16_t>(lid));
    }
    return std::move(out_);
  }

 private:
  // Switch sw's out-edges toward batch destination j, as bits over them.
  static void mask_of(const PathBatch& paths, const RoutingGraph& g, SwitchId sw, uint32_t j,
                      std::vector<uint64_t>& mask) {
    const uint32_t begin = g.edge_begin(sw), degree = g.edge_begin(sw + 1) - begin;
    mask.assign((degree + 63) / 64, 0);
    for (uint32_t b = 0; b < degree; ++b) mask[b / 64] |= ((paths.toward(begin + b) >> j) & 1) << (b % 64);
  }

  // fn(port) for each of switch sw's out-ports whose bit is set in `mask`.
  template <typename Fn>
  void for_each_port(SwitchId sw, std::span<const uint64_t> mask, Fn&& fn) const {
    for (uint32_t w = 0; w < mask.size(); ++w) {
      for (uint64_t bits = mask[w]; bits != 0; bits &= bits - 1) {
        fn(now_.edge_port(now_.edge_begin(sw) + w * 64 + static_cast<uint32_t>(std::countr_zero(bits))));
      }
    }
  }

  static bool on(std::span<const uint64_t> mask, uint16_t bit) {
    return bit != kNoBit && ((mask[bit / 64] >> (bit % 64)) & 1) != 0;
  }

  // Hops from `root` to every switch along `g`'s out-edges (kFarHops: none).
  static void hops_from(const RoutingGraph& g, SwitchId root, std::vector<uint16_t>& hops,
                        std::vector<SwitchId>& queue) {
    hops.assign(g.switch_count(), kFarHops);
    queue.assign(1, root);
    hops[root] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      const SwitchId at = queue[head];
      for (uint32_t e = g.edge_begin(at); e < g.edge_begin(at + 1); ++e) {
        const SwitchId next = g.edge_target(e);
        if (hops[next] != kFarHops) continue;
        hops[next] = static_cast<uint16_t>(hops[at] + 1);
        queue.push_back(next);
      }
    }
  }

  // Hops from `root` in the graph now, searched once.
  const std::vector<uint16_t>& hops_now(SwitchId root) {
    auto [it, fresh] = hops_now_.try_emplace(root);
    if (fresh) hops_from(now_, root, it->second, queue_);
    return it->second;
  }

  // moved_[t]: the distance from some end to destination switch t changed.
  // When none from an end did, none from any switch did: an old shortest
  // path that lost a cable keeps its length from that cable's end on, and a
  // new shorter one would be shorter from the first added cable's end.
  void find_moved(const std::vector<SwitchId>& ends) {
    moved_.assign(switches_, false);
    std::vector<uint16_t> before;
    for (SwitchId end : ends) {
      hops_from(before_, end, before, queue_);
      const std::vector<uint16_t>& now = hops_now(end);
      for (SwitchId t = 0; t < switches_; ++t) {
        if (before[t] != now[t]) moved_[t] = true;
      }
    }
  }

  // An end of a changed cable with the hops from it and from the far end of
  // each of its out-edges, now and before (hops_now: toward a destination
  // whose distances did not move, the same in either graph).
  struct EndHops {
    SwitchId sw;
    const std::vector<uint16_t>* here;
    std::vector<const std::vector<uint16_t>*> now_next, before_next;  // by out-edge
  };
  EndHops hops_around(SwitchId sw) {
    EndHops end{sw, &hops_now(sw), {}, {}};
    for (uint32_t e = now_.edge_begin(sw); e < now_.edge_begin(sw + 1); ++e) {
      end.now_next.push_back(&hops_now(now_.edge_target(e)));
    }
    for (uint32_t e = before_.edge_begin(sw); e < before_.edge_begin(sw + 1); ++e) {
      end.before_next.push_back(&hops_now(before_.edge_target(e)));
    }
    return end;
  }

  // The bits of `bits` for the batch destinations toward which switch sw's
  // out-edges on paths differ between the searches now and before.
  uint64_t differing(const PathBatch& paths, const PathBatch& old_paths, SwitchId sw, uint64_t bits) const {
    uint64_t differ = 0;
    const uint32_t now_begin = now_.edge_begin(sw), before_begin = before_.edge_begin(sw);
    for (uint32_t b = 0; b < now_.edge_begin(sw + 1) - now_begin; ++b) {
      differ |= paths.toward(now_begin + b) ^ old_paths.toward(before_begin + b);
    }
    return differ & bits;
  }

  // The destinations whose distances moved, searched now and before, 64 to
  // a pair of searches; moved_at_[to]: (search, bit) of each.
  void search_moved() {
    std::vector<SwitchId> moved;
    for (SwitchId to = 0; to < switches_; ++to) {
      if (moved_[to]) moved.push_back(to);
    }
    moved_at_.assign(switches_, {kNoIndex, 0});
    for (size_t i = 0; i < moved.size(); i += PathBatch::kWidth) {
      const auto some = std::span(moved).subspan(i, std::min<size_t>(PathBatch::kWidth, moved.size() - i));
      auto& pair = moved_searches_.emplace_back(std::make_unique<ShortestPathBatch>(now_),
                                                std::make_unique<ShortestPathBatch>(before_));
      pair.first->search(some, false);
      pair.second->search(some, false);
      std::vector<uint64_t>& differ = moved_differ_.emplace_back(switches_, 0);
      for (SwitchId sw = 0; sw < switches_; ++sw) {
        if (same_edges_[sw]) differ[sw] = differing(*pair.first, *pair.second, sw, ~uint64_t{0});
      }
      for (uint32_t j = 0; j < some.size(); ++j) {
        moved_at_[some[j]] = {static_cast<uint32_t>(moved_searches_.size() - 1), j};
      }
    }
  }

  // The mends a search of the run of destinations first .. first + count - 1
  // would make, in its order (switch by switch, destination by destination):
  // at the ends of changed cables toward each destination, elsewhere toward
  // the moved ones whose paths differ there.
  void mend_run(SwitchId first, uint32_t count, const std::vector<EndHops>& end_hops) {
    std::vector<SwitchId> moved;
    for (SwitchId to = first; to < first + count; ++to) {
      if (moved_[to]) moved.push_back(to);
    }
    size_t next_end = 0;  // end_hops is in switch order
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      const EndHops* end = next_end < end_hops.size() && end_hops[next_end].sw == sw ? &end_hops[next_end++] : nullptr;
      if (end != nullptr) {
        for (SwitchId to = first; to < first + count; ++to) {
          if (moved_[to]) {
            mend_moved(to, sw);
          } else {
            mend_end(to, *end);
          }
        }
        continue;
      }
      for (SwitchId to : moved) {
        const auto [search, j] = moved_at_[to];
        if ((moved_differ_[search][sw] >> j) & 1) mend_moved(to, sw);
      }
    }
  }

  // mend() toward a destination that moved, from its searches.
  void mend_moved(SwitchId to, SwitchId sw) {
    if (to == sw) return;
    const auto [search, j] = moved_at_[to];
    mask_of(*moved_searches_[search].first, now_, sw, j, mask_);
    mask_of(*moved_searches_[search].second, before_, sw, j, old_mask_);
    mend(to, sw);
  }

  // mend() at the end of a changed cable toward a destination switch whose
  // distances did not move: its out-edges on paths, now and before, are the
  // edges to neighbours one hop closer.
  void mend_end(SwitchId to, const EndHops& end) {
    if (to == end.sw) return;
    const uint16_t here = (*end.here)[to];
    const auto mask_over = [&](const std::vector<const std::vector<uint16_t>*>& next, std::vector<uint64_t>& mask) {
      mask.assign((next.size() + 63) / 64, 0);
      for (size_t b = 0; here != kFarHops && b < next.size(); ++b) {
        if ((*next[b])[to] + 1 == here) mask[b / 64] |= uint64_t{1} << (b % 64);
      }
    };
    mask_over(end.now_next, mask_);
    mask_over(end.before_next, old_mask_);
    mend(to, end.sw);
  }

  // Switch sw's entries toward the LIDs hanging off switch `to`, whose
  // out-edges on paths are mask_ (old_mask_ before).
  void mend(SwitchId to, SwitchId sw) {
    lids_here_.clear();
    for (const Destination& d : now_.destinations_of(to)) {
      for (uint32_t k = 0; k < d.lid_count(); ++k) lids_here_.push_back(static_cast<uint16_t>(d.base.value + k));
    }
    if (lids_here_.empty()) return;
    const std::span<const uint64_t> mask = mask_;
    // Follows set(): its first write to a row moves the row to a copy.
    const uint8_t* const& row = rows_[sw];
    if (std::all_of(mask.begin(), mask.end(), [](uint64_t w) { return w == 0; })) {
      for (uint16_t lid : lids_here_) {
        if (row[lid] != kNoRoute) set(sw, lid, kNoRoute);
      }
      return;
    }
    const auto right = [&](uint8_t port) { return port != kNoRoute && on(mask, now_bit_[size_t{sw} * 256 + port]); };
    const bool all_right = std::all_of(lids_here_.begin(), lids_here_.end(), [&](uint16_t lid) { return right(row[lid]); });
    // The out-ports now on a path that were not before: a cable came, or a
    // distance shrank behind a neighbour.
    fresh_.clear();
    for_each_port(sw, mask, [&](uint8_t port) {
      if (!on(old_mask_, before_bit_[size_t{sw} * 256 + port])) fresh_.push_back(port);
    });
    if (all_right && fresh_.empty()) return;

    // Spread over the ports: first the destination's LIDs here (so a port
    // that came onto the paths takes its share of them), then every entry.
    // Only the LIDs some packet reaches this switch for count (carries()).
    // The switch's counts break ties; they cost a pass over its neighbours'
    // tables where no endpoint hangs off it. Worth it where an entry must
    // move, and at and next to the ends of a changed cable, where a cable
    // put back gets its share; not farther, where a port came onto paths
    // behind a neighbour (a cable put back does that on most switches of a
    // fat tree): there this destination's spread decides.
    const std::vector<uint32_t>* counted = &used_[sw];
    if (!all_right || has_endpoints_[sw] || near_change_[sw]) counted = &used_at(sw);
    const std::vector<uint32_t>& used = *counted;
    const auto fewer_used = [&](uint8_t a, uint8_t b) { return !used.empty() && used[a] < used[b]; };
    for (uint8_t p : touched_) local_[p] = 0;
    touched_.clear();
    const auto local = [&](uint8_t port) -> uint32_t& {
      if (local_[port] == 0) touched_.push_back(port);
      return local_[port];
    };
    const auto fewer = [&](uint8_t a, uint8_t b) {
      return b == kNoRoute || local(a) < local(b) || (local(a) == local(b) && fewer_used(a, b));
    };
    // Whether each LID is carried here: this switch's entries do not change
    // it, so it is asked once.
    carried_here_.resize(lids_here_.size());
    for (size_t i = 0; i < lids_here_.size(); ++i) {
      carried_here_[i] = carries(sw, lids_here_[i]);
      if (carried_here_[i] && right(row[lids_here_[i]])) ++local(row[lids_here_[i]]);
    }
    for (size_t i = 0; i < lids_here_.size(); ++i) {
      const uint16_t lid = lids_here_[i];
      if (right(row[lid])) continue;
      uint8_t best = kNoRoute;
      for_each_port(sw, mask, [&](uint8_t p) {
        if (fewer(p, best)) best = p;
      });
      set(sw, lid, best);
      if (carried_here_[i]) ++local(best);
    }
    if (fresh_.empty()) return;
    for (size_t i = 0; i < lids_here_.size(); ++i) {
      if (!carried_here_[i]) continue;
      const uint16_t lid = lids_here_[i];
      uint8_t best = kNoRoute;
      for (uint8_t p : fresh_) {
        if (fewer(p, best)) best = p;
      }
      // Moved when that evens this destination's spread, or leaves it as
      // even and evens the switch's.
      const uint8_t port = row[lid];
      const uint32_t there = local(best) + 1, here = local(port);
      if (there < here || (there == here && !used.empty() && used[best] + 1 < used[port])) {
        --local(port);
        ++local(best);
        set(sw, lid, best);
      }
    }
  }

  // Whether some packet reaches switch sw for `lid`: it is an endpoint's
  // LID, and an endpoint hangs off sw or a neighbour forwards it here (its
  // entry as it stands in this pass). A switch's own LIDs carry management
  // MADs, and a LID nobody sends through here loads no port: a port given
  // only such entries carries no data (balanced_routes.cpp weighs the same).
  bool carries(SwitchId sw, uint16_t lid) const {
    if (!data_[lid]) return false;
    if (has_endpoints_[sw]) return true;
    for (const auto& [from, port] : feeders_[sw]) {
      if (rows_[from][lid] == port) return true;
    }
    return false;
  }

  // The switch's carried entries per port, counted when first asked for.
  // mend() compares only its switch-to-switch ports; set() keeps every
  // count moving. A one-cable pull reaches every leaf of a 42k-LID fat
  // tree, so this is the repair's hottest loop (see the histogram below).
  const std::vector<uint32_t>& used_at(SwitchId sw) {
    std::vector<uint32_t>& c = used_[sw];
    if (!c.empty()) return c;
    c.assign(256, 0);
    // (Plain pointers and a local bound: a byte store may alias the
    // members, so through them GCC reloads every byte and does not vectorize.)
    const size_t lids = lids_;
    const uint8_t* carried = data_.data();
    if (!has_endpoints_[sw]) {
      // carries() for every LID, a neighbour's table at a time.
      fed_.assign(lids, 0);
      uint8_t* fed = fed_.data();
      for (const auto& [from, port] : feeders_[sw]) {
        const uint8_t* theirs = rows_[from];
        const uint8_t p = port;
        for (size_t lid = 0; lid < lids; ++lid) fed[lid] |= static_cast<uint8_t>(theirs[lid] == p);
      }
      const uint8_t* data = data_.data();
      for (size_t lid = 0; lid < lids; ++lid) fed[lid] &= data[lid];
      carried = fed;
    }
    // One pass, four histograms: consecutive LIDs often share a port, and
    // one histogram's increments then wait on each other's store (the old
    // single histogram was the larger part of a k=34 pull in
    // bench/reroute.sh). A vectorized pass per port came next; on 42,773
    // LIDs and 34 ports this is several times faster.
    const uint8_t* row = rows_[sw];
    std::array<std::array<uint32_t, 256>, 4> h{};
    size_t lid = 0;
    for (; lid + 4 <= lids; lid += 4) {
      h[0][row[lid]] += carried[lid];
      h[1][row[lid + 1]] += carried[lid + 1];
      h[2][row[lid + 2]] += carried[lid + 2];
      h[3][row[lid + 3]] += carried[lid + 3];
    }
    for (; lid < lids; ++lid) h[0][row[lid]] += carried[lid];
    for (size_t p = 0; p < 256; ++p) c[p] = h[0][p] + h[1][p] + h[2][p] + h[3][p];
    return c;
  }

  void set(SwitchId sw, uint16_t lid, uint8_t port) {
    uint8_t& entry = writable(sw)[lid];
    std::vector<uint32_t>& c = used_[sw];
    if (!c.empty() && carries(sw, lid)) {
      --c[entry];
      ++c[port];
    }
    entry = port;
    changed_[lid] = true;
    ++out_.changed_entries;
  }

  // Switch sw's row to write into: a copy of its own at the first write
  // when the tables given share it (SharedLfts::edit); reads follow.
  uint8_t* writable(SwitchId sw) {
    if (!owned_[sw]) {
      owned_[sw] = out_.lfts.edit(now_.node_of(sw).value).data();
      rows_[sw] = owned_[sw];
    }
    return owned_[sw];
  }

  const RoutingGraph& before_;
  const RoutingGraph& now_;
  const uint32_t switches_;
  const size_t lids_;
  RepairedTables out_;
  std::vector<const uint8_t*> rows_;    // by switch: its table, to read
  std::vector<uint8_t*> owned_;         // by switch: its table once written (null before)
  std::vector<uint16_t> now_bit_;       // [sw * 256 + port]: its out-edge bit now, kNoBit
  std::vector<uint16_t> before_bit_;    // the same before
  std::vector<bool> same_edges_;        // by switch: its out-edges are as before, bit for bit
  std::vector<bool> near_change_;       // by switch: an end of a changed cable, or next to one
  std::vector<std::vector<uint32_t>> used_;  // by switch: entries per port (empty: not counted yet)
  std::vector<bool> changed_;           // by LID
  std::vector<uint8_t> data_;           // by LID: 1 for an endpoint's (not a switch's own)
  std::vector<uint8_t> fed_;            // used_at(): by LID, 1 where a neighbour forwards it here
  std::vector<bool> has_endpoints_;     // by switch
  std::vector<std::vector<std::pair<SwitchId, uint8_t>>> feeders_;  // by switch: (neighbour, its port here)
  std::vector<uint8_t> fresh_;          // mend(): ports newly on a path
  std::vector<uint16_t> lids_here_;     // mend(): the destination's LIDs
  std::vector<uint8_t> carried_here_;   // mend(): carries() of each
  std::vector<uint64_t> mask_, old_mask_;  // mend(): the out-edges on paths, now and before
  std::vector<bool> moved_;             // by destination switch (find_moved)
  // search_moved(): the searches (now, before) of the moved destinations,
  // by destination its (search, bit), and by search the bits toward which
  // each switch's paths differ.
  std::vector<std::pair<std::unique_ptr<ShortestPathBatch>, std::unique_ptr<ShortestPathBatch>>> moved_searches_;
  std::vector<std::pair<uint32_t, uint32_t>> moved_at_;
  std::vector<std::vector<uint64_t>> moved_differ_;
  std::unordered_map<SwitchId, std::vector<uint16_t>> hops_now_;  // by root (hops_now)
  std::vector<SwitchId> queue_;         // hops_from()
  std::array<uint32_t, 256> local_{};   // mend(): the destination's entries per port
  std::vector<uint8_t> touched_;        // ... the ports it may have counted
};

}  // namespace

std::string repair_obstacle(const RoutingGraph& before, const RoutingGraph& now, const SharedLfts& last) {
  if (before.switch_count() != now.switch_count()) {
    return fmt::format("the switches changed ({} before, {} now)", before.switch_count(), now.switch_count());
  }
  for (SwitchId sw = 0; sw < now.switch_count(); ++sw) {
    if (guid_of(before, before.node_of(sw)) != guid_of(now, now.node_of(sw))) {
      return fmt::format("switch {} is new", guid_of(now, now.node_of(sw)));
    }
  }
  const auto was = before.destinations(), is = now.destinations();
  if (was.size() != is.size()) {
    return fmt::format("the destinations changed ({} before, {} now)", was.size(), is.size());
  }
  for (size_t i = 0; i < is.size(); ++i) {
    if (!same_destination(before, was[i], now, is[i])) {
      return fmt::format("LID {} is not where it was", is[i].base.value);
    }
  }
  if (before.max_lid() != now.max_lid()) return "the highest LID changed";
  if (last.size() != now.fabric().node_count()) return "the tables are not for this fabric";
  for (SwitchId sw = 0; sw < now.switch_count(); ++sw) {
    if (last[now.node_of(sw).value].size() != size_t{now.max_lid()} + 1) {
      return fmt::format("switch {} has no table of {} entries", guid_of(now, now.node_of(sw)), now.max_lid() + 1);
    }
  }
  return {};
}

std::optional<RepairedTables> repair_shortest_path_tables(const RoutingGraph& before, const RoutingGraph& now,
                                                          SharedLfts last, bool search_all) {
  if (!repair_obstacle(before, now, last).empty()) return std::nullopt;
  if (now.switch_count() == 0) return RepairedTables{.lfts = std::move(last)};
  return Repair(before, now, std::move(last)).run(search_all);
}

}  // namespace ibsm::routing
