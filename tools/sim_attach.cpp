#include "tools/sim_attach.h"

#include <fmt/format.h>

namespace ibsm::tools {

Result<PortRef> sim_attach_point(const Fabric& topology, const std::string& node_name) {
  if (topology.node_count() == 0) return invalid_argument_error("the topology has no nodes");
  NodeIndex node{0};
  if (!node_name.empty()) {
    auto found = topology.find_by_name(node_name);
    if (!found) return not_found_error(fmt::format("no node named \"{}\" in the topology", node_name));
    node = *found;
  }
  const Node& n = topology.node(node);
  if (!n.is_switch() && n.num_ports < 1) return invalid_argument_error(fmt::format("node \"{}\" has no port", n.name));
  return PortRef{node, static_cast<uint8_t>(n.is_switch() ? 0 : 1)};
}

}  // namespace ibsm::tools
