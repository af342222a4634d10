// Single-source shortest-path routing with global balancing (SSSP: Hoefler,
// Schneider, Lumsdaine, "Optimized routing for large-scale InfiniBand
// networks", 2009). Every directed switch-to-switch channel carries a
// load; destination LIDs are routed one after the other, each along the
// in-tree of a search from the destination's switch over the current loads,
// and after each LID every channel of its tree gets heavier by the number of
// endpoint ports whose packets for the LID cross it. Later LIDs thus avoid
// the channels earlier ones loaded, over the whole fabric rather than switch
// by switch as min-hop balances.
//
// Which route: first of all one minimal in hops, and among the minimal ones
// the one with the least load summed along it. (The paper, and OpenSM,
// weigh a hop as more than any channel's load instead, which lets a detour
// win only once several channels of every minimal path carry more than all
// endpoint pairs' worth of load between them; ordering by hops first keeps
// min-hop's paths always, so routes are loop-free and never longer than
// min-hop's, and lets the search run breadth first, level by level, with no
// priority queue.) Loads (all integers):
//  - A switch's own LIDs (port 0) are routed on the current loads but add
//    no load: they carry management MADs, not data, and counting them would
//    skew the balance of the data routes (min-hop does the same).
//  - LMC > 0: the 2^LMC LIDs of a port are routed in turn, and while the
//    port's later LIDs are routed every channel an earlier LID's tree used
//    weighs a penalty P more per such LID (P outweighs a few LIDs' worth of
//    load), so they part ways where minimal paths allow. The penalties go
//    when the port is done; the loads stay.
//
// Ties between equal sums go to the lowest port of the switch choosing,
// so the tables depend on nothing but the snapshot. Switches that cannot
// reach a destination (a split fabric) get no route for it (kNoRoute).
//
// Rip-up and reroute: after the first pass, each endpoint's routes are
// taken off the channels and routed again over what every other endpoint
// left (SsspOptions::reroute_passes), while that lightens the busiest
// channel.
//
// Cost: per pass, one breadth-first search per destination switch for its
// hop levels (the loads do not change them) and per destination LID one
// relaxation of the edges between those levels (flat arrays, reused):
// O(passes x LIDs x edges), plus writing the tables through a staging
// buffer (one destination touches every switch's table); a reroute pass
// also keeps a copy of the tables to undo it by.
#pragma once

#include <string_view>

#include "routing/engine.h"

namespace ibsm::routing {

inline constexpr std::string_view kSsspName = "sssp";

struct SsspOptions {
  // Passes that rip every endpoint's routes up and route them again over
  // the others' loads, while the busiest channel gets lighter (see
  // SsspRouter::run). On the benchmark's 1,056-host dragonfly the busiest
  // channel carried 1,836 routes after the first pass, 1,260 after one
  // more, 1,092 after three.
  unsigned reroute_passes = 3;
};

class SsspEngine final : public RoutingEngine {
 public:
  explicit SsspEngine(SsspOptions options = {}) : options_(options) {}
  std::string_view name() const override { return kSsspName; }
  // Refuses a fabric without switches.
  Result<UnicastTables> compute(const RoutingInput& input) override;

 private:
  SsspOptions options_;
};

}  // namespace ibsm::routing
