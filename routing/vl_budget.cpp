#include "routing/vl_budget.h"

#include <algorithm>

#include "routing/graph.h"

namespace ibsm::routing {

uint8_t data_vls_of_code(uint8_t code) {
  switch (code) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 4;
    case 4: return 8;
    case 5: return 15;
    default: return 0;
  }
}

uint8_t vl_budget(const RoutingInput& input) {
  const Fabric& fabric = input.fabric();
  uint8_t budget = std::clamp<uint8_t>(input.max_vls, 1, 15);
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      const uint8_t vls = data_vls_of_code(port.vl_cap);
      if (vls == 0 || !cable_usable(fabric, PortRef{NodeIndex{n}, p})) continue;
      budget = std::min(budget, vls);
    }
  }
  return budget;
}

}  // namespace ibsm::routing
