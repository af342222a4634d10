#include "routing/shared_trees.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing {

void share_destination_trees(const RoutingGraph& graph, UnicastTables& tables) {
  for (SwitchId to = 0; to < graph.switch_count(); ++to) {
    const std::span<const Destination> dests = graph.destinations_of(to);
    uint32_t lead = 0;
    for (const Destination& d : dests) {
      if (d.port != 0) {
        lead = d.base.value;
        break;
      }
    }
    if (lead == 0) continue;  // no endpoint here: nothing to share
    for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
      if (sw == to) continue;
      std::vector<uint8_t>& lft = tables.lfts[graph.node_of(sw).value];
      if (lead >= lft.size()) continue;
      const uint8_t port = lft[lead];
      for (const Destination& d : dests) {
        for (uint32_t k = 0; k < d.lid_count() && d.base.value + k < lft.size(); ++k) lft[d.base.value + k] = port;
      }
    }
  }
}

}  // namespace ibsm::routing
