// Balanced port choice along the paths of a path batch: what min-hop and
// up*/down* routing share. Every switch forwards every destination LID along
// one of its candidate out-edges (routing/shortest_paths.h), and among them
// it takes the one carrying the fewest routes so far (ties: the lowest
// port), so load spreads evenly over parallel paths. A route counts on a
// port when some endpoint's packets for the LID take it; see
// balanced_routes.cpp for why that matters on fat trees. The 2^LMC LIDs of
// one port prefer different next switches, then different ports, so their
// paths are as disjoint as the candidates allow.
//
// Routed in one round, each destination sees only the routes before it; on
// irregular fabrics a second round of rip-up and reroute (each destination
// switch's routes taken off the loads and routed again among the same
// candidates) lowers the busiest link well below the first round's, and
// below OpenSM's min-hop. It runs only when the first round's busiest link
// is above a simple lower bound (the routes into and out of each switch's
// endpoints over its switch cables), which the first round meets on fat
// trees, and it stops after its first 64 destination switches with
// endpoints if they moved no link's load (fabrics too symmetric for the
// bound, such as oversubscribed XGFTs, where every switch makes the same
// choices in both rounds).
//
// Switches that do not reach a destination get no route for it (kNoRoute).
//
// Cost: the searches, then one pass over the switches per destination LID:
// O(switches x LIDs), the size of the tables themselves; the second round,
// where it runs to the end, repeats the searches and costs about twice the
// first, as it reads each LID's old routes back table by table (on the
// 45k-endpoint XGFT of bench/scale.sh it stops after 64 of 1,611
// destination switches).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "mad/base/aside_runner.h"
#include "mad/base/status.h"
#include "routing/engine.h"
#include "routing/graph.h"
#include "routing/shortest_paths.h"

namespace ibsm::routing {

// The paths the balancing reads, 64 destination switches at a time.
// `search(b, first, count)` fills *batches[b] with the search toward
// switches first .. first + count - 1 (count <= PathBatch::kWidth); a
// non-ok Status stops the routing and is returned: an engine may find out
// there that it cannot route the fabric. With a second batch and an
// `aside` runner, the next 64 destinations are searched into the other
// batch beside the routing of the current ones (a search reads only the
// graph and writes only its batch, and one runs at a time): at 49k LIDs
// the searches are a fifth of min-hop's time. Without them each search
// runs in place, into the first batch.
struct PathSearch {
  std::array<PathBatch*, 2> batches{};
  std::function<Status(uint32_t batch, SwitchId first, uint32_t count)> search;
  AsideRunner aside;
};

// What the balancing did, for the engine's log and the tests.
struct BalanceRounds {
  bool second_round = false;     // the first round's busiest link was above the bound
  uint32_t destinations = 0;     // destination switches with endpoints
  uint32_t rerouted = 0;         // of them, routed again by the second round
  std::string summary() const;   // for a log line
};

// Fills `tables` (as UnicastTables::unrouted made them for `graph`) for every
// destination, reading the paths toward them from `paths`' batches.
Result<BalanceRounds> route_balanced(const RoutingGraph& graph, const PathSearch& paths, UnicastTables& tables);

}  // namespace ibsm::routing
