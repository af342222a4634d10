// Deadlock-free SSSP (`dfsssp`, OpenSM's name for the idea: Domke, Hoefler,
// Nagel, "Deadlock-free oblivious routing for arbitrary topologies", 2011).
// The tables are sssp's balanced shortest paths (routing/sssp.h), unchanged;
// deadlock freedom comes from putting the paths on layers, one SL (and VL)
// each, so that every layer's channel dependency graph is acyclic.
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
// (routing/vl_budget.h) allows, the engine refuses and the chain moves on.
//
// SL = layer, and SL i travels on VL i: the engine gives no SL2VL tables of
// its own (the SM's default mapping is the identity within the operational
// VLs). path_sl answers from tables the engine owns, not from the snapshot.
//
// Cost: sssp's, plus one walk of every path (switches x LIDs, a few hops
// each) to index the dependencies, one search per layer over the
// dependency graph (directed channels x ports), and one walk of every path
// moved.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "routing/engine.h"

namespace ibsm::routing {

inline constexpr std::string_view kDfssspName = "dfsssp";

class DfssspEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return kDfssspName; }
  // Refuses a fabric without switches, and one whose paths need more layers
  // than vl_budget(input) allows.
  Result<UnicastTables> compute(const RoutingInput& input) override;
  // The layer of the path from the switch `source` hangs off to
  // `destination`; 0 for LIDs it did not route.
  uint8_t path_sl(const RoutingInput& input, Lid source, Lid destination) const override;
  bool assigns_sls() const override { return true; }

  // Layers (SLs, VLs) the last compute used; 1 when no path needed moving.
  uint8_t layers() const { return layers_; }

 private:
  uint8_t layers_ = 1;
  uint32_t lids_ = 0;                      // max LID + 1: the row length of sl_
  std::vector<uint32_t> source_switch_;    // by LID: the switch its packets enter at, or UINT32_MAX
  std::vector<uint8_t> sl_;                // [switch * lids_ + LID]; empty when every layer is 0
};

}  // namespace ibsm::routing
