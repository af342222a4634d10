// One tree per destination switch: the fallback of the layered engines
// (dfsssp, lash) when their balanced paths need more layers (VLs) than the
// budget allows.
//
// Balanced engines route each LID of a switch's endpoints on a tree of its
// own, to spread the load over parallel paths; every extra tree adds channel
// dependencies, and on irregular fabrics those cost layers. Here every LID
// hanging off a switch (its endpoints' and its own) follows the tree of the
// first endpoint LID there, so a (source switch, destination switch) pair
// has one path, as in OpenSM's lash: far fewer dependencies, at the price
// of balance. Measured on bench/vl_routing.sh's fabrics: a random 64-switch
// fabric needs 5 layers balanced and 4 with shared trees (busiest channel
// 308 -> 448 routes), a 1,056-host dragonfly 5 and 4 (1,092 -> 1,120).
// With LMC > 0 a port's LIDs then share one path too.
//
// The tables stay shortest-path tables: each copied entry is a step of a
// shortest-path tree toward the same switch. The switch itself keeps its
// own entries (the port each endpoint hangs off).
#pragma once

#include "routing/engine.h"
#include "routing/graph.h"

namespace ibsm::routing {

// Rewrites `tables` (over `graph`) so that every LID of a switch's
// destinations follows the first endpoint LID's tree; switches without
// endpoints keep their LIDs' own trees. O(switches x LIDs).
void share_destination_trees(const RoutingGraph& graph, UnicastTables& tables);

}  // namespace ibsm::routing
