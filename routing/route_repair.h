// Route repair: shortest-path tables mended after switch cables came or
// went, instead of computed again (OpenSM's unicast cache answers the same
// need). On a 42k-LID fat tree a fresh min-hop routing and its full check
// take seconds (tens in a Debug build); one cable touches a few thousand of
// its 148M entries.
//
// An entry of min-hop tables is right when it leads one hop closer to its
// destination switch over a usable cable, and tables whose every entry is
// right deliver every LID along shortest paths, loop-free, whatever the
// other entries say. So the repair searches the old and the new graph (the
// bit-parallel batches min-hop itself uses) and looks only at the (switch,
// destination switch) pairs whose out-edges on paths differ: the rest keep
// every entry. There, an entry that is no longer right (its cable is gone,
// or a distance changed) moves to the out-port on a path that carries the
// fewest of this destination's LIDs, then of the switch's. A port that came
// onto the paths (a cable put back, or a distance that shrank behind it)
// takes LIDs from the busiest while that evens the destination's spread,
// or, at and next to a changed cable, the switch's; so a cable put back
// carries routes again. Only LIDs some packet reaches the switch for count
// (an endpoint hangs off it, or a neighbour forwards the LID to it), as a
// fresh routing weighs what is carried.
//
// What it does not do: balance by the whole carried load as a fresh routing
// does (routing/balanced_routes.h, with its rip-up round), nor keep the
// LIDs of an LMC > 0 port apart. Repaired tables drift from a fresh
// routing's (the tests bound the busiest cable at 4/3 of it; on fat trees
// it matches after a pull); a heavy sweep computes one.
//
// It applies only when the same switches are there (by GUID) and the same
// LIDs hang off the same switch ports: otherwise nullopt, and the caller
// routes afresh.
//
// Cost: after a few cables changed (up to 8 switches at their ends), one
// plain search from each end and from each of its neighbours, then two
// bit-parallel searches per 64 destination switches only where a distance
// to one of them moved; after more (a storm), two per 64 destinations. Then
// the entries of the pairs that changed; counting a switch's carried
// entries reads its neighbours' tables. On the 42,772-LID fat tree of
// bench/reroute.sh (Release, one core) one cable pulled searched 110
// batches before the narrowing, a fifth of a fresh min-hop routing's time,
// whose full check takes far longer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/engine.h"
#include "routing/graph.h"

namespace ibsm::routing {

// Why tables for `before` cannot be repaired for `now` (empty: they can):
// the switches or the destinations differ, or the tables do not fit `now`.
std::string repair_obstacle(const RoutingGraph& before, const RoutingGraph& now, const SharedLfts& last);

// `last`: the tables made for `before`, moved to `now`'s node indices. The
// rows it changes are copied first where `last` shares them: the result
// shares every other row with the tables the caller gave.
// nullopt when repair_obstacle names an obstacle. `search_all`: search
// toward every destination even after a few changed cables (the tests hold
// the narrowed repair to the same tables).
std::optional<RepairedTables> repair_shortest_path_tables(const RoutingGraph& before, const RoutingGraph& now,
                                                          SharedLfts last, bool search_all = false);

}  // namespace ibsm::routing
