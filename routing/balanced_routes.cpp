#include "routing/balanced_routes.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <span>
#include <vector>

#include <fmt/format.h>

namespace ibsm::routing {

namespace {

// The out-edges of one switch on shortest paths to one destination: a
// bitmask over the switch's out-edges, bit b being edge `edge_begin + b`.
// Bits come in port order, which makes "lowest port" "lowest bit".
struct CandidateSet {
  static constexpr uint32_t kNone = UINT32_MAX;

  std::span<const uint64_t> words;
  uint32_t edge_begin = 0;

  // The first candidate bit at or after `from`, or kNone.
  uint32_t next(uint32_t from) const {
    for (uint32_t w = from / 64; w < words.size(); ++w) {
      uint64_t bits = words[w];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      if (bits != 0) return w * 64 + static_cast<uint32_t>(std::countr_zero(bits));
    }
    return kNone;
  }
};

// One LID of the destination being routed.
struct LidJob {
  uint32_t slot;        // its column in the staging chunk
  uint32_t first_slot;  // the column of its port's first LID
  uint32_t rank;        // which of its port's 2^LMC LIDs it is
  bool data;            // an endpoint's LID (not a switch's own)
};

// A switch's choice state toward the current destination.
struct ChoiceState {
  uint32_t level;  // the least load among the candidates when last computed; kNone: compute it
  uint32_t pos;    // the next candidate (index in port order) to look at for that level
  uint32_t turn;   // the next candidate for a weight-0 pick
};

// Fills the tables 64 destination switches at a time (the path batch), then destination switch by destination switch, LID by LID.
//
// The LFTs are written through a staging buffer that holds a chunk of LIDs
// for every switch: one destination touches every switch's table, and
// writing the tables directly would cost a cache and TLB miss per switch
// per destination, which at 4k switches is most of the run time.
class BalancedRouter {
 public:
  BalancedRouter(const RoutingGraph& graph, const PathSearch& search, UnicastTables& tables)
      : graph_(graph), switches_(graph.switch_count()), search_(search) {
    lft_.resize(switches_);
    for (SwitchId sw = 0; sw < switches_; ++sw) lft_[sw] = tables.lfts[graph.node_of(sw).value].data();
    loads_.assign(graph.edge_count(), 0);
    edge_of_port_.fill(kNone);
    state_.resize(switches_);
    layout_words_.resize(switches_);
    layout_count_.assign(switches_, kNone);
    layout_edges_.resize(graph.edge_count());
    layout_ports_.resize(graph.edge_count());
    layout_targets_.resize(graph.edge_count());
    uint32_t widest = 0;
    for (SwitchId sw = 0; sw < switches_; ++sw) widest = std::max(widest, graph.edge_begin(sw + 1) - graph.edge_begin(sw));
    candidate_loads_.resize(widest);
    endpoints_.assign(switches_, 0);
    size_t most_lids = 0;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      size_t lids = 0;
      for (const Destination& d : graph.destinations_of(sw)) {
        lids += d.lid_count();
        if (d.port != 0) ++endpoints_[sw];
      }
      most_lids = std::max(most_lids, lids);
    }
    chunk_capacity_ = std::max<size_t>(kChunkLids, most_lids);
    staging_.resize(chunk_capacity_ * switches_);
  }

  // The first round routes every destination knowing only the loads of
  // those routed before it, so the early ones go blind: on irregular
  // fabrics (random graphs, tori, dragonflies) that leaves hot links. One
  // round of rip-up and reroute then takes each destination switch's routes
  // off the loads and routes them again knowing every other route, among
  // the same candidates (so up*/down* stays legal). Where the first round
  // already meets the lower bound (fat trees, where it is exact) there is
  // nothing to gain and the round is skipped: it costs more than the first,
  // as it reads the tables back switch by switch. It also stops early when
  // its first kProbeDestinations destination switches with endpoints, the
  // ones the first round routed blindest, come out with every link's load
  // as it was: knowing every route moved none of their load, so the later
  // destinations, which were routed knowing more, have less still to move.
  // That is the case on fabrics too symmetric for the bound, where every
  // switch sees the same loads and makes the same choices in both rounds
  // (the 49,151-LID XGFT of bench/scale.sh: its entries were permuted and
  // every load came out the same, at a third of the bring-up's time).
  Result<BalanceRounds> run() {
    IBSM_RETURN_IF_ERROR(run_round(false));
    rounds_.destinations =
        static_cast<uint32_t>(std::count_if(endpoints_.begin(), endpoints_.end(), [](uint16_t e) { return e != 0; }));
    if (max_load() <= load_lower_bound()) return rounds_;
    rounds_.second_round = true;
    IBSM_RETURN_IF_ERROR(run_round(true));
    return rounds_;
  }

 private:
  uint32_t max_load() const { return loads_.empty() ? 0 : *std::max_element(loads_.begin(), loads_.end()); }

  // A bound no routing beats: the routes into a switch's endpoint LIDs
  // from every other switch's endpoints enter over its switch cables, and
  // those its endpoints send out leave over them, so some cable carries at
  // least the even share of each.
  uint32_t load_lower_bound() const {
    uint64_t endpoints = 0, data_lids = 0;
    std::vector<uint64_t> lids(switches_, 0);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      endpoints += endpoints_[sw];
      for (const Destination& d : graph_.destinations_of(sw)) {
        if (d.port != 0) lids[sw] += d.lid_count();
      }
      data_lids += lids[sw];
    }
    uint64_t bound = 0;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      const uint64_t links = graph_.edge_begin(sw + 1) - graph_.edge_begin(sw);
      if (links == 0) continue;
      const uint64_t in = lids[sw] * (endpoints - endpoints_[sw]);
      const uint64_t out = endpoints_[sw] * (data_lids - lids[sw]);
      bound = std::max(bound, (std::max(in, out) + links - 1) / links);
    }
    return static_cast<uint32_t>(std::min<uint64_t>(bound, UINT32_MAX));
  }

  // One round over every destination, batch by batch. With two batches and
  // a runner, batch b + 1 is searched aside while batch b is routed.
  Status run_round(bool reroute) {
    start_chunk();
    std::vector<uint32_t> loads_before;
    if (reroute) loads_before = loads_;
    const bool pipelined = search_.batches[1] != nullptr && search_.aside;
    uint32_t current = 0;
    IBSM_RETURN_IF_ERROR(search_.search(current, 0, std::min(PathBatch::kWidth, switches_)));
    for (SwitchId first = 0; first < switches_; first += PathBatch::kWidth) {
      const uint32_t count = std::min(PathBatch::kWidth, switches_ - first);
      const SwitchId next = first + count;
      const uint32_t next_count = std::min(PathBatch::kWidth, switches_ - next);
      paths_ = search_.batches[current];
      assert(paths_->count() == count && paths_->destination(0) == first);
      Status next_searched;
      std::function<void()> wait_next;
      if (pipelined && next_count > 0) {
        wait_next = search_.aside([this, &next_searched, other = 1 - current, next, next_count] {
          next_searched = search_.search(other, next, next_count);
        });
      }
      const bool stopped = route_batch(first, count, reroute, loads_before);
      if (wait_next) wait_next();
      if (stopped) return {};
      if (next_count == 0) break;
      if (pipelined) {
        current = 1 - current;
      } else {
        next_searched = search_.search(current, next, next_count);
      }
      IBSM_RETURN_IF_ERROR(next_searched);
    }
    flush();
    return {};
  }

  // Routes the destinations of one batch; true when the second round stops
  // there (its probe moved no load), with the chunk written out.
  bool route_batch(SwitchId first, uint32_t count, bool reroute, const std::vector<uint32_t>& loads_before) {
    for (uint32_t j = 0; j < count; ++j) {
      const std::span<const Destination> dests = graph_.destinations_of(first + j);
      if (dests.empty()) continue;
      size_t lids = 0;
      for (const Destination& d : dests) lids += d.lid_count();
      if (chunk_lids_.size() + lids > chunk_capacity_) {
        flush();
        start_chunk();
      }
      if (reroute) rip_up(j, dests);
      route(j, dests);
      if (reroute && endpoints_[first + j] != 0 && ++rounds_.rerouted == kProbeDestinations &&
          loads_ == loads_before) {
        flush();
        return true;
      }
    }
    return false;
  }

  static constexpr uint32_t kNone = CandidateSet::kNone;
  static constexpr size_t kChunkLids = 1024;  // LIDs staged per switch before they are written out
  static constexpr size_t kPassLids = 64;    // LIDs routed together in one pass over the switches
  static constexpr uint32_t kProbeDestinations = 64;  // rerouted before the second round may stop

  CandidateSet candidates(uint32_t j, SwitchId sw) const {
    return {paths_->candidates(j, sw), graph_.edge_begin(sw)};
  }

  // Routes every LID of the destinations hanging off batch destination j,
  // in passes of about equal size.
  void route(uint32_t j, std::span<const Destination> dests) {
    const SwitchId to = paths_->destination(j);
    jobs_.clear();
    uint8_t* own = &staging_[to * chunk_capacity_];
    for (const Destination& d : dests) {
      // A switch's own LIDs carry management MADs, not data: they need
      // routes but should not skew the balance of the data routes.
      const uint32_t first = static_cast<uint32_t>(chunk_lids_.size());
      for (uint32_t k = 0; k < d.lid_count(); ++k) {
        const uint32_t slot = static_cast<uint32_t>(chunk_lids_.size());
        chunk_lids_.push_back(static_cast<uint16_t>(d.base.value + k));
        own[slot] = d.port;  // the switch the LIDs hang off hands them to their port
        jobs_.push_back({slot, first, k, d.port != 0});
      }
    }
    for (SwitchId sw : paths_->farthest_first(j)) state_[sw] = {kNone, 0, 0};
    const size_t passes = (jobs_.size() + kPassLids - 1) / kPassLids;
    const size_t per_pass = (jobs_.size() + passes - 1) / passes;
    for (size_t from = 0; from < jobs_.size(); from += per_pass) {
      route_pass(j, std::span(jobs_).subspan(from, std::min(per_pass, jobs_.size() - from)));
    }
  }

  // Takes the routes toward the endpoint LIDs hanging off batch destination
  // j, as the tables hold them from the first round, off the loads: the
  // LIDs' trees are walked farthest first, carrying the endpoints whose
  // packets take them, as route_pass put them on. All of the destination's
  // LIDs are walked together, so each switch's table is read once per
  // destination where it sits (its LIDs are mostly consecutive), not once
  // per LID: read LID by LID, the tables (4k switches x 49k LIDs) cost a
  // cache miss per entry, most of the time of the whole second round. The
  // loads come out the same: they are only subtracted from.
  void rip_up(uint32_t j, std::span<const Destination> dests) {
    const std::span<const SwitchId> order = paths_->farthest_first(j);
    const SwitchId to = paths_->destination(j);
    rip_lids_.clear();
    for (const Destination& d : dests) {
      if (d.port == 0) continue;
      for (uint32_t k = 0; k < d.lid_count(); ++k) rip_lids_.push_back(static_cast<uint16_t>(d.base.value + k));
    }
    const size_t n = rip_lids_.size();
    if (n == 0) return;
    rip_.resize(size_t{switches_} * n);
    const auto init = [&](SwitchId sw) { std::fill_n(&rip_[sw * n], n, uint32_t{endpoints_[sw]}); };
    init(to);
    for (SwitchId sw : order) init(sw);
    for (SwitchId sw : order) {
      // The candidate out of each port; the same search gives the same
      // candidates, so every port the table holds is one.
      const CandidateSet cands = candidates(j, sw);
      for (uint32_t bit = cands.next(0); bit != kNone; bit = cands.next(bit + 1)) {
        const uint32_t e = cands.edge_begin + bit;
        if (edge_of_port_[graph_.edge_port(e)] == kNone) edge_of_port_[graph_.edge_port(e)] = e;
      }
      const uint8_t* table = lft_[sw];
      const uint32_t* carried = &rip_[sw * n];
      for (size_t k = 0; k < n; ++k) {
        const uint32_t edge = edge_of_port_[table[rip_lids_[k]]];
        assert(edge != kNone);
        if (edge == kNone) continue;
        loads_[edge] -= carried[k];
        rip_[graph_.edge_target(edge) * n + k] += carried[k];
      }
      for (uint32_t bit = cands.next(0); bit != kNone; bit = cands.next(bit + 1)) {
        edge_of_port_[graph_.edge_port(cands.edge_begin + bit)] = kNone;
      }
    }
  }

  // Routes a few LIDs at every switch that reaches the destination,
  // farthest first, so that a switch knows how many endpoints' packets for
  // each LID reach it; a switch takes all of them in turn while its
  // candidates and their loads are at hand. A switch's choices depend only
  // on its own loads and on the weights from farther switches, so this is
  // the same as routing the LIDs one after the other.
  void route_pass(uint32_t j, std::span<const LidJob> jobs) {
    const size_t n = jobs.size();
    const std::span<const SwitchId> order = paths_->farthest_first(j);
    if (std::none_of(jobs.begin(), jobs.end(), [](const LidJob& job) { return job.data; })) {
      return route_weightless_pass(j, jobs);
    }
    traffic_.resize(size_t{switches_} * n);
    // Each LID's weight at a switch starts as the switch's endpoints, or 0
    // for a switch's own LID: through a mask, so the loop vectorizes (it
    // runs for every switch in every pass).
    data_mask_.resize(n);
    for (size_t k = 0; k < n; ++k) data_mask_[k] = jobs[k].data ? 0xFFFF : 0;
    const auto init = [&](SwitchId sw) {
      uint16_t* row = &traffic_[sw * n];
      const uint16_t endpoints = endpoints_[sw];
      for (size_t k = 0; k < n; ++k) row[k] = static_cast<uint16_t>(endpoints & data_mask_[k]);
    };
    init(paths_->destination(j));
    for (SwitchId sw : order) init(sw);

    for (SwitchId sw : order) {
      const Layout lay = layout(j, sw);
      uint8_t* out = &staging_[sw * chunk_capacity_];
      const uint16_t* weights = &traffic_[sw * n];
      if (lay.count == 1) {
        // One way on: every LID takes it, and carries its weight along.
        std::memset(out + jobs[0].slot, lay.ports[0], n);
        uint16_t* onward = &traffic_[lay.targets[0] * n];
        uint32_t total = 0;
        for (size_t k = 0; k < n; ++k) {
          total += weights[k];
          onward[k] = static_cast<uint16_t>(onward[k] + weights[k]);
        }
        loads_[lay.edges[0]] += total;
        continue;
      }
      uint32_t* loads = gather_loads(lay);
      ChoiceState state = state_[sw];  // a copy: the stores to `loads` could alias it
      uint16_t* traffic = traffic_.data();
      for (size_t k = 0; k < n; ++k) {
        const LidJob& job = jobs[k];
        const uint32_t weight = weights[k];
        const uint32_t i = job.rank == 0 ? pick(lay, loads, state, weight)
                                         : pick_apart(lay, loads, weight, out + job.first_slot, job.rank);
        out[job.slot] = lay.ports[i];
        uint16_t& onward = traffic[lay.targets[i] * n + k];
        onward = static_cast<uint16_t>(onward + weight);
      }
      state_[sw] = state;
      for (uint32_t i = 0; i < lay.count; ++i) loads_[lay.edges[i]] = loads[i];
    }
  }

  // A pass whose LIDs no endpoint's packets use (a switch's own LIDs; on a
  // fat tree most destinations are switches without endpoints, each a pass
  // of one LID over every switch): every weight is 0, so no load changes
  // and nothing is carried onward. Each switch gives its LIDs what
  // route_pass would, the single way on or pick's weight-0 turns, without
  // the weights.
  void route_weightless_pass(uint32_t j, std::span<const LidJob> jobs) {
    const size_t n = jobs.size();
    const bool apart = std::any_of(jobs.begin(), jobs.end(), [](const LidJob& job) { return job.rank != 0; });
    for (SwitchId sw : paths_->farthest_first(j)) {
      const Layout lay = layout(j, sw);
      uint8_t* out = &staging_[sw * chunk_capacity_];
      if (lay.count == 1) {
        std::memset(out + jobs[0].slot, lay.ports[0], n);
        continue;
      }
      uint32_t* loads = apart ? gather_loads(lay) : nullptr;
      ChoiceState state = state_[sw];
      for (size_t k = 0; k < n; ++k) {
        const LidJob& job = jobs[k];
        const uint32_t i =
            job.rank == 0 ? pick(lay, loads, state, 0) : pick_apart(lay, loads, 0, out + job.first_slot, job.rank);
        out[job.slot] = lay.ports[i];
      }
      state_[sw] = state;
    }
  }

  // A switch's candidates toward the current destination in port order:
  // candidate i is out-edge edges[i], on port ports[i], to switch
  // targets[i]. Kept per switch, at the switch's own edge indices, and
  // laid out again only when the candidates change: on a fat tree a switch
  // mostly has the same ones (all its up-links) for destination after
  // destination, and laying them out from the bitmask each time cost as
  // much as the choices.
  struct Layout {
    const uint32_t* edges;
    const uint8_t* ports;
    const SwitchId* targets;
    uint32_t count;
  };
  Layout layout(uint32_t j, SwitchId sw) {
    const std::span<const uint64_t> words = paths_->candidates(j, sw);
    const uint32_t begin = graph_.edge_begin(sw);
    std::array<uint64_t, kLayoutWords>& kept = layout_words_[sw];
    assert(words.size() <= kLayoutWords);
    bool same = layout_count_[sw] != kNone;
    for (size_t w = 0; w < words.size(); ++w) same &= words[w] == kept[w];  // a call to memcmp costs more
    if (!same) {
      std::copy(words.begin(), words.end(), kept.begin());
      uint32_t count = 0;
      for (uint32_t w = 0; w < words.size(); ++w) {
        for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
          const uint32_t e = begin + w * 64 + static_cast<uint32_t>(std::countr_zero(bits));
          layout_edges_[begin + count] = e;
          layout_ports_[begin + count] = graph_.edge_port(e);
          layout_targets_[begin + count] = graph_.edge_target(e);
          ++count;
        }
      }
      layout_count_[sw] = count;
    }
    return {&layout_edges_[begin], &layout_ports_[begin], &layout_targets_[begin], layout_count_[sw]};
  }
  // The candidates' loads side by side, for pick to scan; route_pass
  // writes them back when the switch is done.
  uint32_t* gather_loads(const Layout& lay) {
    for (uint32_t i = 0; i < lay.count; ++i) candidate_loads_[i] = loads_[lay.edges[i]];
    return candidate_loads_.data();
  }

  // "Fewest routes so far, then lowest port", where a route weighs as much
  // as the endpoints whose packets for the LID take it: a switch that no
  // endpoint's packets for this LID reach (weight 0) needs an entry but adds
  // no load. Counting LFT entries alone would balance, at a middle switch,
  // LIDs that its lower switches never send it, and on a fat tree the up
  // ports of successive levels would then line up (every LID a middle
  // switch carries on the same up port); counting what is carried gives the
  // spread of destination-mod-k routing. Returns the candidate's index in
  // `lay`, and adds the weight to its entry of `loads` (the candidates'
  // loads, as gather_loads lays them out).
  //
  // The rule is made cheap: the choice is the first candidate at or after
  // `pos` whose load equals `level`, the least load when it was last
  // computed; loads only grow, so none is below it, and every candidate
  // before `pos` is above it. When the scan runs off the end, the least
  // load is computed again. A run of LIDs with like weights thus costs O(1)
  // each. Weight-0 picks take turns over the candidates.
  static uint32_t pick(const Layout& lay, uint32_t* loads, ChoiceState& state, uint32_t weight) {
    if (weight == 0) {
      const uint32_t i = state.turn < lay.count ? state.turn : 0;
      state.turn = i + 1;
      return i;
    }
    while (true) {
      if (state.level == kNone) {
        uint32_t least = kNone;
        for (uint32_t i = 0; i < lay.count; ++i) least = std::min(least, loads[i]);
        state.level = least;
        state.pos = 0;
      }
      for (uint32_t i = state.pos; i < lay.count; ++i) {
        if (loads[i] == state.level) {
          loads[i] += weight;
          state.pos = i + 1;
          return i;
        }
      }
      state.level = kNone;
    }
  }

  // For the later LIDs of a port with LMC > 0: the least loaded candidate
  // that leads to a switch none of the port's earlier LIDs (whose ports at
  // this switch are `taken`) went to, else one on a port none of them used,
  // else any, so their paths part wherever the topology lets them.
  static uint32_t pick_apart(const Layout& lay, uint32_t* loads, uint32_t weight, const uint8_t* taken,
                             uint32_t count) {
    const auto port_taken = [&](uint8_t port) { return std::find(taken, taken + count, port) != taken + count; };
    const auto next_taken = [&](SwitchId next) {
      for (uint32_t i = 0; i < lay.count; ++i) {
        if (lay.targets[i] == next && port_taken(lay.ports[i])) return true;
      }
      return false;
    };
    uint32_t best = kNone;
    for (int tier = 0; tier < 3 && best == kNone; ++tier) {
      for (uint32_t i = 0; i < lay.count; ++i) {
        if (tier == 0 && next_taken(lay.targets[i])) continue;
        if (tier <= 1 && port_taken(lay.ports[i])) continue;
        if (best == kNone || loads[i] < loads[best]) best = i;
      }
    }
    loads[best] += weight;
    return best;
  }

  void start_chunk() {
    std::fill(staging_.begin(), staging_.end(), kNoRoute);
    chunk_lids_.clear();
  }

  // Writes the staged LIDs into the tables, one switch's table at a time.
  // The chunk's LIDs come in runs of consecutive LIDs (a switch's and its
  // endpoints' are mostly assigned together), and each run is copied as a
  // block rather than entry by entry through the LID list.
  void flush() {
    runs_.clear();
    for (size_t slot = 0; slot < chunk_lids_.size();) {
      size_t end = slot + 1;
      while (end < chunk_lids_.size() && chunk_lids_[end] == chunk_lids_[end - 1] + 1) ++end;
      runs_.push_back({static_cast<uint32_t>(slot), static_cast<uint32_t>(end - slot), chunk_lids_[slot]});
      slot = end;
    }
    for (size_t sw = 0; sw < switches_; ++sw) {
      const uint8_t* row = &staging_[sw * chunk_capacity_];
      uint8_t* table = lft_[sw];
      for (const Run& r : runs_) std::memcpy(table + r.lid, row + r.slot, r.count);
    }
  }

  const RoutingGraph& graph_;
  const uint32_t switches_;
  BalanceRounds rounds_;
  const PathSearch& search_;
  const PathBatch* paths_ = nullptr;  // the batch being routed
  std::vector<uint8_t*> lft_;         // by switch: its table
  std::vector<uint32_t> loads_;       // routes per out-port, by edge index
  std::vector<uint16_t> endpoints_;   // by switch: endpoint ports hanging off it
  std::vector<ChoiceState> state_;    // by switch, toward the current destination
  // Endpoints whose packets for LID k of the pass reach switch sw: [sw * n + k].
  // Never more than there are endpoint LIDs (< 2^16).
  std::vector<uint16_t> traffic_;
  std::vector<LidJob> jobs_;
  // rip_up: endpoints whose packets for ripped-up LID k reach switch sw,
  // [sw * n + k], the LIDs, and the candidate edge out of each port (kNone
  // between switches).
  std::vector<uint32_t> rip_;
  std::vector<uint16_t> rip_lids_;
  std::array<uint32_t, 256> edge_of_port_;
  // The chunk: staging_[switch * chunk_capacity_ + slot] is the switch's
  // port for LID chunk_lids_[slot].
  size_t chunk_capacity_ = 0;
  std::vector<uint8_t> staging_;
  std::vector<uint16_t> chunk_lids_;
  // flush's runs of consecutive LIDs: slots slot .. slot + count - 1 hold
  // LIDs lid .. lid + count - 1.
  struct Run {
    uint32_t slot;
    uint32_t count;
    uint16_t lid;
  };
  std::vector<Run> runs_;
  std::vector<uint16_t> data_mask_;  // route_pass: 0xFFFF for an endpoint's LID, else 0
  // layout(): by switch, the candidate mask last laid out and how many
  // candidates it has (kNone: none yet); the candidates themselves at the
  // switch's edge indices.
  static constexpr size_t kLayoutWords = 4;  // 256 ports
  std::vector<std::array<uint64_t, kLayoutWords>> layout_words_;
  std::vector<uint32_t> layout_count_;
  std::vector<uint32_t> layout_edges_;
  std::vector<uint8_t> layout_ports_;
  std::vector<SwitchId> layout_targets_;
  std::vector<uint32_t> candidate_loads_;  // gather_loads: one switch's candidates' loads
};

}  // namespace

std::string BalanceRounds::summary() const {
  if (!second_round) return fmt::format("one balancing round ({} destination switches with endpoints)", destinations);
  return fmt::format("second balancing round rerouted {} of {} destination switches with endpoints{}", rerouted,
                     destinations, rerouted < destinations ? " (stopped: the first ones moved no link's load)" : "");
}

Result<BalanceRounds> route_balanced(const RoutingGraph& graph, const PathSearch& paths, UnicastTables& tables) {
  assert(paths.batches[0] != nullptr && &paths.batches[0]->graph() == &graph);
  assert(paths.batches[1] == nullptr || &paths.batches[1]->graph() == &graph);
  if (graph.switch_count() == 0) return BalanceRounds{};
  return BalancedRouter(graph, paths, tables).run();
}

}  // namespace ibsm::routing
