// Deadlock-free SSSP (`dfsssp`, OpenSM's name for the idea: Domke, Hoefler,
// Nagel, "Deadlock-free oblivious routing for arbitrary topologies", 2011).
// The tables are sssp's balanced shortest paths (routing/sssp.h), unchanged;
// deadlock freedom comes from putting the paths on layers, one SL (and VL)
// each, so that every layer's channel dependency graph is acyclic.
//
// The layering (a path is a (source switch, destination LID) pair; cycles
// are cut one dependency at a time), the SLs and the SL2VL tables are
// routing/layered_engine.h's, shared with lash.
//
// Cost: sssp's, plus the layering's (routing/path_layering.h).
#pragma once

#include <memory>
#include <string_view>

#include "routing/layered_engine.h"
#include "routing/sssp.h"

namespace ibsm::routing {

inline constexpr std::string_view kDfssspName = "dfsssp";

class DfssspEngine final : public LayeredEngine {
 public:
  DfssspEngine() : LayeredEngine(kDfssspName, std::make_unique<SsspEngine>()) {}
};

}  // namespace ibsm::routing
