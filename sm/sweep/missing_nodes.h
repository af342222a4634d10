// Routes to a node that is missing (it answered before, is silent now, and
// its neighbour's port is still up: sweep_problem.h) are kept until it is
// confirmed gone: the fabric the routing engine sees has the node as last
// seen, hung off the ports it was found missing beyond, so its LIDs keep
// their routes, and nothing is sent to it.
#pragma once

#include <span>

#include "sm/fabric/fabric.h"
#include "sm/sweep/sweep_problem.h"

namespace ibsm {

// `configured`, with every node of `last_seen` that is absent from it and
// hangs (itself, or through other absent nodes) off a port named by a
// `missing` problem appended after its nodes, cabled as last seen to each
// other and to the free ports of `configured` they were cabled to. The
// indices of `configured`'s nodes are unchanged. Returns how many were
// added in `added` (0: `configured` as it is).
Fabric with_missing_nodes(const Fabric& configured, const Fabric& last_seen, std::span<const SweepProblem> problems,
                          size_t* added = nullptr);

}  // namespace ibsm
