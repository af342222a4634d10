// Layered min-hop (`lash`, OpenSM's name: Skeie, Lysne, Theiss, "Layered
// shortest path (LASH) routing in irregular system area networks", 2002):
// min-hop's balanced shortest paths (routing/minhop.h), unchanged, put on
// layers (SLs, VLs) until every layer's channel dependency graph is acyclic,
// the same layering as dfsssp's (routing/layered_engine.h). It differs from
// dfsssp only in the paths: min-hop balances routes per port as it goes
// (and rips up and reroutes on irregular fabrics), sssp by weighted
// shortest paths.
//
// Cost: min-hop's, plus the layering's (routing/path_layering.h).
#pragma once

#include <memory>
#include <string_view>

#include "routing/layered_engine.h"
#include "routing/minhop.h"

namespace ibsm::routing {

inline constexpr std::string_view kLashName = "lash";

class LashEngine final : public LayeredEngine {
 public:
  LashEngine() : LayeredEngine(kLashName, std::make_unique<MinHopEngine>()) {}
};

}  // namespace ibsm::routing
