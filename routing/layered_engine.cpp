#include "routing/layered_engine.h"

#include <utility>

#include <fmt/format.h>

#include "routing/layer_sl2vl.h"
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
  if (!layers.ok()) return layers.status();
  layers_ = std::move(*layers);
  log(input.log, LogLevel::info, Subsystem::routing,
      "{}: routed {} destination(s) over {} switch(es) on {} layer(s) (vls), {} path(s) moved off layer 0; "
      "vl budget {}",
      name_, graph.destinations().size(), graph.switch_count(), layers_.layers(), layers_.moved(), budget);
  return tables;
}

std::optional<std::vector<Sl2VlTable>> LayeredEngine::layer_tables(const RoutingInput& input) const {
  if (layers_.layers() <= 1) return std::nullopt;
  return layer_sl2vl_tables(input.fabric(), layers_.layers());
}

}  // namespace ibsm::routing
