// An engine that routes with another engine's tables, unchanged, and makes
// them deadlock-free by putting the paths on layers (SLs, VLs) until every
// layer's channel dependency graph is acyclic (routing/path_layering.h):
// dfsssp over sssp's balanced shortest paths, lash over min-hop's.
//
// SL = layer, and SL s travels on VL s % layers at every port: the engine
// gives those SL2VL tables (routing/layer_sl2vl.h) for the sweep to program
// whenever it uses more than one layer. path_sl answers from tables the
// engine owns, not from the snapshot.
//
// When the paths need more layers than the budget, every LID of a switch is
// put on one tree toward it (routing/shared_trees.h) and layered again; only
// if that too is over the budget does the engine refuse.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "routing/engine.h"
#include "routing/path_layering.h"

namespace ibsm::routing {

class LayeredEngine : public RoutingEngine {
 public:
  std::string_view name() const override { return name_; }
  // Refuses a fabric without switches, and one whose paths need more layers
  // than vl_budget(input) allows, even with one tree per destination switch.
  Result<UnicastTables> compute(const RoutingInput& input) override { return compute_layers(input); }
  // The layer of the path from the switch `source` hangs off to
  // `destination`; 0 for LIDs it did not route.
  uint8_t path_sl(const RoutingInput&, Lid source, Lid destination) const override {
    return layers_.sl(source, destination);
  }
  bool assigns_sls() const override { return true; }
  // SL s on VL s % layers on every port; nullopt on one layer (every path on SL 0).
  std::optional<std::vector<Sl2VlTable>> sl2vl(const RoutingInput& input) const override {
    return layer_tables(input);
  }

  // Layers (SLs, VLs) the last compute used; 1 when no path needed moving.
  uint8_t layers() const { return layers_.layers(); }

 protected:
  // `name` must outlive the engine (a constant); `paths` makes the tables.
  LayeredEngine(std::string_view name, std::unique_ptr<RoutingEngine> paths)
      : name_(name), paths_(std::move(paths)) {}

 private:
  // Out of line but not virtual: every virtual function stays in the header,
  // so the type info is emitted wherever an engine is (routing/engine.h says
  // why: the core has no RTTI, the tests do).
  Result<UnicastTables> compute_layers(const RoutingInput& input);
  std::optional<std::vector<Sl2VlTable>> layer_tables(const RoutingInput& input) const;

  std::string_view name_;
  std::unique_ptr<RoutingEngine> paths_;
  PathLayers layers_;
};

}  // namespace ibsm::routing
