#include "routing/minhop.h"

#include "routing/balanced_routes.h"
#include "routing/shortest_paths.h"

namespace ibsm::routing {

Result<UnicastTables> MinHopEngine::compute(const RoutingInput& input) {
  UnicastTables tables = UnicastTables::unrouted(input.graph);
  if (input.graph.switch_count() == 0) return tables;
  ShortestPathBatch paths(input.graph);
  const auto search = [&](SwitchId first, uint32_t count) {
    paths.search(first, count);
    return Status{};
  };
  IBSM_RETURN_IF_ERROR(route_balanced(input.graph, paths, search, tables));
  return tables;
}

}  // namespace ibsm::routing
