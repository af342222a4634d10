#include "routing/dor.h"

#include <bit>
#include <vector>

#include "routing/shortest_paths.h"

namespace ibsm::routing {

Result<UnicastTables> DorEngine::compute(const RoutingInput& input) {
  const RoutingGraph& graph = input.graph;
  UnicastTables tables = UnicastTables::unrouted(graph);
  const uint32_t switches = graph.switch_count();
  if (switches == 0) return tables;
  std::vector<uint32_t> routes(graph.edge_count(), 0);  // by edge: LIDs routed over it
  ShortestPathBatch paths(graph);
  for (SwitchId first = 0; first < switches; first += PathBatch::kWidth) {
    const uint32_t count = std::min(PathBatch::kWidth, switches - first);
    paths.search(first, count);
    for (uint32_t j = 0; j < count; ++j) {
      const SwitchId target = paths.destination(j);
      for (const Destination& d : graph.destinations_of(target)) {
        for (uint32_t k = 0; k < d.lid_count(); ++k) {
          const uint32_t lid = d.base.value + k;
          tables.lfts[graph.node_of(target).value][lid] = d.port;
          for (SwitchId sw : paths.farthest_first(j)) {
            // The lowest set bit is the lowest port on a shortest path (out-edges
            // are in port order); its parallel cables are candidates too.
            const std::span<const uint64_t> mask = paths.candidates(j, sw);
            uint32_t lowest = UINT32_MAX;
            for (size_t w = 0; w < mask.size() && lowest == UINT32_MAX; ++w) {
              if (mask[w] != 0) lowest = static_cast<uint32_t>(w * 64 + std::countr_zero(mask[w]));
            }
            if (lowest == UINT32_MAX) continue;
            const uint32_t begin = graph.edge_begin(sw), end = graph.edge_begin(sw + 1);
            const SwitchId next = graph.edge_target(begin + lowest);
            uint32_t best = begin + lowest;
            for (uint32_t e = best + 1; e < end; ++e) {
              if (graph.edge_target(e) == next && routes[e] < routes[best]) best = e;
            }
            ++routes[best];
            tables.lfts[graph.node_of(sw).value][lid] = graph.edge_port(best);
          }
        }
      }
    }
  }
  return tables;
}

}  // namespace ibsm::routing
