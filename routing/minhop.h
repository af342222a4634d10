// Min-hop routing with balanced port choice: every switch forwards every
// destination LID along a shortest path, and among the out-ports that lie on
// a shortest path it takes the one carrying the fewest routes so far (ties:
// the lowest port), so load spreads evenly over parallel paths. A route
// counts on a port when some endpoint's packets for the LID take it; see
// balanced_routes.cpp (the port choice min-hop shares with up*/down*) for
// why that matters on fat trees, and for the rip-up and reroute round that
// evens out irregular fabrics. The 2^LMC LIDs of one port
// prefer different next switches, then different ports, so their paths are
// as disjoint as the topology allows.
//
// Cost: a bit-parallel breadth-first search per 64 destination switches
// (routing/shortest_paths.h), then one pass over the switches per
// destination LID: O(switches / 64 x edges x diameter) plus
// O(switches x LIDs), the latter being the size of the tables themselves
// (each up to twice where the second round runs). After a cable change the
// tables are mended rather than computed again (routing/route_repair.h).
#pragma once

#include <string_view>

#include "routing/engine.h"

namespace ibsm::routing {

inline constexpr std::string_view kMinHopName = "minhop";

class MinHopEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return kMinHopName; }
  Result<UnicastTables> compute(const RoutingInput& input) override;
  // Mends the last tables when only switch cables changed
  // (routing/route_repair.h); the reason it cannot is logged.
  std::optional<RepairedTables> repair(const RoutingInput& input, const Fabric& before,
                                       SharedLfts last) const override;
};

}  // namespace ibsm::routing
