#include "routing/layered_engine.h"

#include <utility>

#include <fmt/format.h>

#include "routing/layer_sl2vl.h"
#include "routing/shared_trees.h"
#include "routing/vl_budget.h"

namespace ibsm::routing {

Result<UnicastTables> LayeredEngine::compute_layers(const RoutingInput& input) {
  const RoutingGraph& graph = input.graph;
  if (graph.switch_count() == 0) {
    return failed_precondition_error(fmt::format("{}: the fabric has no switch to route", name_));
  }
  const uint8_t budget = vl_budget(input);
  Result<UnicastTables> tables = paths_->compute(RoutingInput{.graph = graph});
  if (!tables.ok()) return tables.status();
  layers_ = PathLayers{};
  Result<PathLayers> layers = layer_paths(graph, *tables, budget, name_);
  bool shared = false;
  if (!layers.ok() && layers.status().code() == StatusCode::failed_precondition) {
    // Over the budget: fewer dependencies at the price of balance
    // (routing/shared_trees.h), rather than no deadlock-free routing.
    log(input.log, LogLevel::info, Subsystem::routing,
        "{}: the balanced paths need more than {} layer(s) (vls); trying one tree per destination switch", name_,
        budget);
    share_destination_trees(graph, *tables);
    layers = layer_paths(graph, *tables, budget, name_);
    if (!layers.ok() && layers.status().code() == StatusCode::failed_precondition) {
      return failed_precondition_error(layers.status().message() + ", even with one tree per destination switch");
    }
    shared = true;
  }
  if (!layers.ok()) return layers.status();
  layers_ = std::move(*layers);
  log(input.log, LogLevel::info, Subsystem::routing,
      "{}: routed {} destination(s) over {} switch(es) on {} layer(s) (vls), {} path(s) moved off layer 0; "
      "vl budget {}{}",
      name_, graph.destinations().size(), graph.switch_count(), layers_.layers(), layers_.moved(), budget,
      shared ? "; one tree per destination switch" : "");
  return tables;
}

std::optional<std::vector<Sl2VlTable>> LayeredEngine::layer_tables(const RoutingInput& input) const {
  if (layers_.layers() <= 1) return std::nullopt;
  return layer_sl2vl_tables(input.fabric(), layers_.layers());
}

}  // namespace ibsm::routing
