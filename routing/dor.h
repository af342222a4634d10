// Dimension-order routing (`dor`, OpenSM's name and meaning): min-hop paths,
// but instead of spreading routes over the shortest paths, every switch
// takes, among its out-ports on a shortest path to the destination, the
// lowest-numbered one. On a fabric cabled so that port order is dimension
// order (a mesh whose dimension d uses the same pair of ports on every
// switch, a hypercube whose dimension b uses the same port on both ends, as
// sm/topogen builds them) that is the lowest dimension first: e-cube routing
// on a hypercube and XY(Z) routing on a mesh, both free of credit loops
// (Dally and Seitz). Parallel cables to the same switch are one dimension:
// the routes are balanced over them (fewest routes so far, then the lowest
// port).
//
// It promises nothing on a torus: the rings of each dimension close credit
// loops there (the route checker reports the cycle); torus-2QoS (routing/
// torus_2qos.h) is the deadlock-free engine for tori. Like OpenSM's dor it
// assigns no SLs.
//
// Cost: the bit-parallel searches of min-hop (routing/shortest_paths.h), then
// one pass over the switches per destination LID.
#pragma once

#include <string_view>

#include "routing/engine.h"

namespace ibsm::routing {

inline constexpr std::string_view kDorName = "dor";

class DorEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return kDorName; }
  Result<UnicastTables> compute(const RoutingInput& input) override;
};

}  // namespace ibsm::routing
