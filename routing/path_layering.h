// Putting paths on layers (SLs, VLs) until every layer's channel dependency
// graph is acyclic: the step dfsssp (over sssp's tables) and lash (over
// min-hop's) share. The tables are not changed; only each path's SL.
//
// A path is a (source switch, destination LID) pair: every CA on one switch
// follows the same tables from there, so they share the path and its layer
// (the SL depends on the source's switch and the destination LID). A switch
// LID draws paths only from switches with CAs: switches send each other SMPs
// only, on VL15 (routing/cdg.h says why). Paths of fewer than two
// switch-to-switch channels make no dependency and stay on layer 0.
//
// Layering, one layer at a time: every path starts on layer 0. A depth-first
// search over the layer's dependency graph meets a cycle; of the cycle's
// dependencies the one the fewest paths of the layer make is cut, by moving
// those paths to the next layer (the dependencies they made go with them),
// and the search carries on from the deepest channel the cut left intact
// (removing dependencies never puts a finished channel back on a cycle). When
// the search is done the layer is acyclic; the paths moved make the next
// layer, searched the same way. If more layers are needed than the VL budget
// (routing/vl_budget.h) allows, the engine tries again with one tree per
// destination switch (routing/shared_trees.h), then refuses and the chain
// moves on.
//
// Cost: one whole-graph check (routing/cdg.h; a fabric without a credit
// loop stops there), one walk of every path (switches x LIDs, a few hops
// each, destination by destination over one row of next channels per LID)
// to list its dependencies and index the paths by dependency, one search
// per layer over the dependency graph (directed channels x ports), and a
// count of every later layer's dependencies from the lists.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "routing/engine.h"

namespace ibsm::routing {

// The layer of every path of one set of tables.
class PathLayers {
 public:
  // Layers used: 1 when no path needed moving.
  uint8_t layers() const { return layers_; }
  // Paths moved off layer 0.
  uint64_t moved() const { return moved_; }
  // The layer of the path from the switch `source` hangs off (or is) to
  // `destination`; 0 for LIDs the tables did not know.
  uint8_t sl(Lid source, Lid destination) const;

 private:
  friend Result<PathLayers> layer_paths(const RoutingGraph&, const UnicastTables&, uint8_t, std::string_view);
  uint8_t layers_ = 1;
  uint64_t moved_ = 0;
  uint32_t lids_ = 0;                    // max LID + 1: the row length of sl_
  std::vector<uint32_t> source_switch_;  // by LID: the switch its packets enter at, or UINT32_MAX
  std::vector<uint8_t> sl_;              // [switch * lids_ + LID]; empty when every layer is 0
};

// Layers the paths of `tables` over `graph`; refuses (failed_precondition,
// naming `engine`) when they need more than `budget` layers.
Result<PathLayers> layer_paths(const RoutingGraph& graph, const UnicastTables& tables, uint8_t budget,
                               std::string_view engine);

}  // namespace ibsm::routing
