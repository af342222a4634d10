#include "routing/layer_sl2vl.h"

#include <array>

namespace ibsm::routing {

std::vector<Sl2VlTable> layer_sl2vl_tables(const Fabric& fabric, uint8_t layers) {
  const uint8_t n = layers == 0 ? 1 : layers;
  std::array<uint8_t, 16> vl_of_sl{};
  for (uint8_t sl = 0; sl < vl_of_sl.size(); ++sl) vl_of_sl[sl] = static_cast<uint8_t>(sl % n);
  std::vector<Sl2VlTable> out;
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    const NodeIndex node{i};
    const Node& nd = fabric.node(node);
    for (uint8_t o = 1; o <= nd.num_ports; ++o) {
      if (!nd.port(o).connected()) continue;
      if (!nd.is_switch()) {
        out.push_back({node, o, o, vl_of_sl});
        continue;
      }
      for (uint8_t in = 0; in <= nd.num_ports; ++in) {
        if (in == o || (in != 0 && !nd.port(in).connected())) continue;
        out.push_back({node, in, o, vl_of_sl});
      }
    }
  }
  return out;
}

}  // namespace ibsm::routing
