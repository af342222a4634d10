#include "sm/dump/switch_hops.h"

#include <cassert>

namespace ibsm::dump {
namespace {

bool link_up(const Port& a, const Port& b) { return a.state != PortState::down && b.state != PortState::down; }

}  // namespace

SwitchHops::SwitchHops(const Fabric& fabric) : fabric_(fabric), ordinal_(fabric.node_count(), UINT32_MAX) {
  std::vector<NodeIndex> switches;
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    if (fabric.node(NodeIndex{i}).is_switch()) {
      ordinal_[i] = static_cast<uint32_t>(switches.size());
      switches.emplace_back(i);
    }
  }
  count_ = switches.size();

  // Neighbour lists by ordinal; parallel links add duplicates, which BFS skips.
  std::vector<std::vector<uint32_t>> neighbours(count_);
  for (size_t s = 0; s < count_; ++s) {
    const Node& node = fabric.node(switches[s]);
    for (size_t p = 1; p < node.ports.size(); ++p) {
      const Port& port = node.ports[p];
      if (!port.connected()) continue;
      const Node& peer = fabric.node(port.remote_node);
      if (!peer.is_switch() || !link_up(port, peer.port(port.remote_port))) continue;
      neighbours[s].push_back(ordinal_[port.remote_node.value]);
    }
  }

  // One breadth-first search per switch.
  least_.assign(count_ * count_, no_path);
  std::vector<uint32_t> queue(count_);
  for (size_t from = 0; from < count_; ++from) {
    uint8_t* row = &least_[from * count_];
    size_t head = 0, tail = 0;
    row[from] = 0;
    queue[tail++] = static_cast<uint32_t>(from);
    while (head < tail) {
      const uint32_t at = queue[head++];
      // Saturate below no_path: hop counts are one byte in OpenSM too.
      const uint8_t next = row[at] >= no_path - 1 ? static_cast<uint8_t>(no_path - 1) : static_cast<uint8_t>(row[at] + 1);
      for (uint32_t n : neighbours[at]) {
        if (row[n] != no_path) continue;
        row[n] = next;
        queue[tail++] = n;
      }
    }
  }
}

size_t SwitchHops::ordinal(NodeIndex n) const {
  assert(n.value < ordinal_.size() && ordinal_[n.value] != UINT32_MAX && "not a switch");
  return ordinal_[n.value];
}

uint8_t SwitchHops::least(NodeIndex from, NodeIndex to) const { return least_[ordinal(from) * count_ + ordinal(to)]; }

uint8_t SwitchHops::via(NodeIndex from, uint8_t port, NodeIndex to) const {
  const Node& node = fabric_.node(from);
  if (port == 0) return least(from, to);
  if (port > node.num_ports || port >= node.ports.size()) return no_path;
  const Port& out = node.port(port);
  if (!out.connected()) return no_path;
  const Node& peer = fabric_.node(out.remote_node);
  if (!peer.is_switch() || !link_up(out, peer.port(out.remote_port))) return no_path;
  const uint8_t rest = least(out.remote_node, to);
  if (rest == no_path) return no_path;
  return rest >= no_path - 1 ? static_cast<uint8_t>(no_path - 1) : static_cast<uint8_t>(rest + 1);
}

}  // namespace ibsm::dump
