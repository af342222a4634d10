#include "routing/minhop.h"

#include <optional>

#include "routing/balanced_routes.h"
#include "routing/route_repair.h"
#include "routing/shortest_paths.h"

namespace ibsm::routing {

Result<UnicastTables> MinHopEngine::compute(const RoutingInput& input) {
  UnicastTables tables = UnicastTables::unrouted(input.graph);
  if (input.graph.switch_count() == 0) return tables;
  ShortestPathBatch paths(input.graph);
  std::optional<ShortestPathBatch> next;  // searched beside the routing, with a runner
  if (input.aside) next.emplace(input.graph);
  ShortestPathBatch* batches[2] = {&paths, next ? &*next : nullptr};
  const PathSearch search{{batches[0], batches[1]},
                          [&](uint32_t b, SwitchId first, uint32_t count) {
                            batches[b]->search(first, count);
                            return Status{};
                          },
                          input.aside};
  auto rounds = route_balanced(input.graph, search, tables);
  if (!rounds.ok()) return rounds.status();
  log(input.log, LogLevel::debug, Subsystem::routing, "{}: {}", name(), rounds->summary());
  return tables;
}

std::optional<RepairedTables> MinHopEngine::repair(const RoutingInput& input, const Fabric& before,
                                                   SharedLfts last) const {
  auto was = RoutingGraph::build(before);
  if (!was.ok()) return std::nullopt;
  if (const std::string obstacle = repair_obstacle(*was, input.graph, last); !obstacle.empty()) {
    log(input.log, LogLevel::info, Subsystem::routing, "{}: tables not mended: {}; routing afresh", name(), obstacle);
    return std::nullopt;
  }
  return repair_shortest_path_tables(*was, input.graph, std::move(last));
}

}  // namespace ibsm::routing
