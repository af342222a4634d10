#include "sm/status_page/fabric_layout.h"

#include <algorithm>
#include <utility>

namespace ibsm::status {

FabricLayout layout_fabric(const Fabric& fabric) {
  const uint32_t nodes = static_cast<uint32_t>(fabric.node_count());
  FabricLayout out;
  out.row_of.assign(nodes, kNoRow);
  out.position_of.assign(nodes, 0);

  // Breadth first from every switch with a CA cabled to it (or from every
  // switch when there is none).
  std::vector<NodeIndex> queue;
  for (uint32_t n = 0; n < nodes; ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(static_cast<uint8_t>(p));
      if (port.connected() && !fabric.node(port.remote_node).is_switch()) {
        out.row_of[n] = 0;
        queue.push_back(NodeIndex{n});
        break;
      }
    }
  }
  if (queue.empty()) {
    for (uint32_t n = 0; n < nodes; ++n) {
      if (!fabric.node(NodeIndex{n}).is_switch()) continue;
      out.row_of[n] = 0;
      queue.push_back(NodeIndex{n});
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const NodeIndex at = queue[head];
    const Node& node = fabric.node(at);
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(static_cast<uint8_t>(p));
      if (!port.connected() || !fabric.node(port.remote_node).is_switch()) continue;
      if (out.row_of[port.remote_node.value] != kNoRow) continue;
      out.row_of[port.remote_node.value] = out.row_of[at.value] + 1;
      queue.push_back(port.remote_node);
    }
  }
  uint32_t rows = 0;
  for (const NodeIndex n : queue) rows = std::max(rows, out.row_of[n.value] + 1);
  bool unreached = false;
  for (uint32_t n = 0; n < nodes; ++n) {
    if (fabric.node(NodeIndex{n}).is_switch() && out.row_of[n] == kNoRow) {
      out.row_of[n] = rows;
      unreached = true;
    }
  }
  out.rows.resize(rows + (unreached ? 1 : 0));
  for (uint32_t n = 0; n < nodes; ++n) {
    if (out.row_of[n] != kNoRow) out.rows[out.row_of[n]].push_back(NodeIndex{n});
  }

  // Each row above the first by the mean place of its neighbours in the row
  // below (the barycentre heuristic); ties and switches without such
  // neighbours keep fabric order.
  for (uint32_t p = 0; p < out.rows[0].size(); ++p) out.position_of[out.rows[0][p].value] = p;
  for (size_t r = 1; r < out.rows.size(); ++r) {
    std::vector<std::pair<double, NodeIndex>> keyed;
    for (const NodeIndex n : out.rows[r]) {
      const Node& node = fabric.node(n);
      double sum = 0;
      uint32_t count = 0;
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(static_cast<uint8_t>(p));
        if (!port.connected() || out.row_of[port.remote_node.value] != r - 1) continue;
        sum += out.position_of[port.remote_node.value];
        ++count;
      }
      keyed.emplace_back(count > 0 ? sum / count : static_cast<double>(keyed.size()), n);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (uint32_t p = 0; p < keyed.size(); ++p) {
      out.rows[r][p] = keyed[p].second;
      out.position_of[keyed[p].second.value] = p;
    }
  }
  return out;
}

}  // namespace ibsm::status
