#include "sm/sweep/missing_nodes.h"

#include <deque>
#include <unordered_map>

namespace ibsm {

Fabric with_missing_nodes(const Fabric& configured, const Fabric& last_seen, std::span<const SweepProblem> problems,
                          size_t* added) {
  Fabric out = configured;
  // last_seen index -> index in `out`, for the nodes grafted.
  std::unordered_map<uint32_t, NodeIndex> grafted;
  std::deque<NodeIndex> queue;
  for (const SweepProblem& p : problems) {
    if (p.kind != SweepProblemKind::missing || !p.port) continue;
    auto via = last_seen.find_by_node_guid(p.node);
    if (!via || p.port->value > last_seen.node(*via).num_ports) continue;
    const Port& port = last_seen.node(*via).port(p.port->value);
    if (!port.connected()) continue;
    queue.push_back(port.remote_node);
  }
  while (!queue.empty()) {
    const NodeIndex n = queue.front();
    queue.pop_front();
    const Node& node = last_seen.node(n);
    if (grafted.count(n.value) || configured.find_by_node_guid(node.node_guid)) continue;
    Node copy = node;
    for (Port& p : copy.ports) {
      p.remote_node = NodeIndex{};
      p.remote_port = 0;
    }
    auto index = out.add_node(std::move(copy));
    if (!index.ok()) continue;  // a GUID the fabric has on another node: not the node as last seen
    grafted.emplace(n.value, *index);
    for (uint8_t p = 1; p <= node.num_ports; ++p)
      if (node.port(p).connected()) queue.push_back(node.port(p).remote_node);
  }
  for (const auto& [seen, at] : grafted) {
    const Node& node = last_seen.node(NodeIndex{seen});
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      if (!port.connected()) continue;
      const Node& far = last_seen.node(port.remote_node);
      std::optional<NodeIndex> there;
      if (auto g = grafted.find(port.remote_node.value); g != grafted.end()) {
        if (g->second < at) continue;  // cabled once, from the lower end
        there = g->second;
      } else {
        there = configured.find_by_node_guid(far.node_guid);
      }
      if (!there || out.node(*there).port(port.remote_port).connected()) continue;
      (void)out.connect(PortRef{at, p}, PortRef{*there, port.remote_port});
    }
  }
  if (added) *added = grafted.size();
  return out;
}

}  // namespace ibsm
