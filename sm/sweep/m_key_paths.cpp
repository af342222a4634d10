#include "sm/sweep/m_key_paths.h"

namespace ibsm {

MKeyPaths m_key_paths(const SubnetSnapshot& s) {
  MKeyPaths keys;
  const Fabric& f = s.fabric;
  auto key_of = [&](NodeIndex n, uint8_t p) { return s.has_port_info(n, p) ? s.port_info[n.value][p].m_key : 0; };
  for (uint32_t i = 0; i < f.node_count() && i < s.paths.size(); ++i) {
    const NodeIndex n{i};
    const Node& node = f.node(n);
    if (node.is_switch()) {
      if (uint64_t k = key_of(n, 0)) keys.set(s.paths[i], k);
      continue;
    }
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const uint64_t k = key_of(n, p);
      if (k == 0) continue;
      if (n == s.sm_port.node && p == s.sm_port.port) {
        keys.set(DrPath{}, k);
        continue;
      }
      const Port& port = node.port(p);
      if (!port.connected() || !f.node(port.remote_node).is_switch()) continue;
      const DrPath& there = s.paths[port.remote_node.value];
      if (!there.full()) keys.set(there.extended(port.remote_port), k);
    }
  }
  return keys;
}

}  // namespace ibsm
