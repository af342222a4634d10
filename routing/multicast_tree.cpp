#include "routing/multicast_tree.h"

#include <algorithm>

#include <fmt/format.h>

namespace ibsm::routing {
namespace {

// Hop distances from `from` to every switch, breadth first; a search stops
// after depth `limit` (the rest stays kUnreachable).
void distances(const RoutingGraph& graph, SwitchId from, uint32_t limit, std::vector<uint32_t>& depth,
               std::vector<SwitchId>& queue) {
  depth.assign(graph.switch_count(), kUnreachable);
  queue.clear();
  depth[from] = 0;
  queue.push_back(from);
  for (size_t head = 0; head < queue.size(); ++head) {
    const SwitchId at = queue[head];
    if (depth[at] >= limit) continue;
    for (uint32_t e = graph.edge_begin(at); e < graph.edge_begin(at + 1); ++e) {
      const SwitchId next = graph.edge_target(e);
      if (depth[next] != kUnreachable) continue;
      depth[next] = depth[at] + 1;
      queue.push_back(next);
    }
  }
}

}  // namespace

std::vector<SwitchId> central_switches(const RoutingGraph& graph) {
  const uint32_t n = graph.switch_count();
  std::vector<SwitchId> targets;  // the switches members hang off, most of the time
  for (SwitchId sw = 0; sw < n; ++sw) {
    for (const Destination& d : graph.destinations_of(sw)) {
      if (d.port != 0) {
        targets.push_back(sw);
        break;
      }
    }
  }
  if (targets.empty()) {
    for (SwitchId sw = 0; sw < n; ++sw) targets.push_back(sw);
  }
  if (n == 0) return {};

  // Spines first: a switch without endpoints and with many cables is the
  // likely centre, and a good bound found early cuts the other searches short.
  std::vector<SwitchId> order(n);
  for (SwitchId sw = 0; sw < n; ++sw) order[sw] = sw;
  std::vector<bool> is_target(n, false);
  for (SwitchId t : targets) is_target[t] = true;
  std::stable_sort(order.begin(), order.end(), [&](SwitchId a, SwitchId b) {
    const uint32_t da = graph.edge_begin(a + 1) - graph.edge_begin(a);
    const uint32_t db = graph.edge_begin(b + 1) - graph.edge_begin(b);
    if (is_target[a] != is_target[b]) return !is_target[a];
    return da > db;
  });

  // Best: the most endpoint switches reached (a split fabric), then the
  // smallest eccentricity over them.
  size_t best_reached = 0;
  uint32_t best_ecc = kUnreachable;
  std::vector<SwitchId> best;
  std::vector<uint32_t> depth;
  std::vector<SwitchId> queue;
  for (SwitchId sw : order) {
    // Once some switch reaches every target, a search deeper than its
    // eccentricity cannot tie it.
    const uint32_t limit = best_reached == targets.size() ? best_ecc : kUnreachable;
    distances(graph, sw, limit, depth, queue);
    size_t reached = 0;
    uint32_t ecc = 0;
    for (SwitchId t : targets) {
      if (depth[t] == kUnreachable) continue;
      ++reached;
      ecc = std::max(ecc, depth[t]);
    }
    if (reached > best_reached || (reached == best_reached && ecc < best_ecc)) {
      best_reached = reached;
      best_ecc = ecc;
      best.clear();
    }
    if (reached == best_reached && ecc == best_ecc) best.push_back(sw);
  }
  std::sort(best.begin(), best.end());
  return best;
}

MulticastTreeBuilder::MulticastTreeBuilder(const RoutingGraph& graph, std::vector<SwitchId> roots)
    : graph_(graph), roots_(std::move(roots)) {
  if (roots_.empty()) roots_ = central_switches(graph_);
}

SwitchId MulticastTreeBuilder::root_of(Lid mlid) const {
  if (roots_.empty()) return kNoSwitch;
  const uint32_t index = mlid.value >= Lid::multicast_base ? mlid.value - Lid::multicast_base : mlid.value;
  return roots_[index % roots_.size()];
}

const MulticastTreeBuilder::TowardRoot& MulticastTreeBuilder::toward(SwitchId root) {
  auto found = trees_.find(root);
  if (found != trees_.end()) return found->second;
  const uint32_t n = graph_.switch_count();
  std::vector<uint32_t> depth;
  std::vector<SwitchId> queue;
  distances(graph_, root, kUnreachable, depth, queue);

  TowardRoot t;
  t.parent.assign(n, kNoSwitch);
  t.up_port.assign(n, 0);
  t.down_port.assign(n, 0);
  const SwitchGraph& g = graph_.graph();
  for (SwitchId sw = 0; sw < n; ++sw) {
    if (sw == root || depth[sw] == kUnreachable) continue;
    // The nearer neighbour with the lowest id, through its lowest port: a
    // choice that depends on the fabric alone.
    for (const auto& e : boost::make_iterator_range(boost::out_edges(sw, g))) {
      const SwitchId next = boost::target(e, g);
      if (depth[next] + 1 != depth[sw]) continue;
      const SwitchEdge& edge = g[e];
      if (t.parent[sw] == kNoSwitch || next < t.parent[sw] ||
          (next == t.parent[sw] && edge.remote_port < t.down_port[sw])) {
        t.parent[sw] = next;
        t.up_port[sw] = edge.port;
        t.down_port[sw] = edge.remote_port;
      }
    }
  }
  return trees_.emplace(root, std::move(t)).first->second;
}

Result<MulticastTree> MulticastTreeBuilder::tree_from(SwitchId root, std::span<const PortRef> members) {
  const Fabric& fabric = graph_.fabric();
  MulticastTree tree;
  tree.ports.resize(fabric.node_count());

  // Each member's switch and that switch's port toward it.
  struct Attachment {
    SwitchId sw;
    uint8_t port;
  };
  std::vector<Attachment> attached;
  for (const PortRef& m : members) {
    if (!m.node.valid() || m.node.value >= fabric.node_count()) {
      return invalid_argument_error("multicast member is not a node of the fabric");
    }
    const Node& node = fabric.node(m.node);
    if (m.port > node.num_ports) {
      return invalid_argument_error(fmt::format("multicast member {} has no port {}", node.node_guid, m.port));
    }
    if (node.is_switch()) {
      attached.push_back({graph_.switch_of(m.node), 0});
      continue;
    }
    if (m.port == 0 || !cable_usable(fabric, m)) continue;
    const Port& port = node.port(m.port);
    if (!fabric.node(port.remote_node).is_switch()) continue;
    attached.push_back({graph_.switch_of(port.remote_node), port.remote_port});
  }
  if (attached.empty() || root == kNoSwitch) return tree;
  const TowardRoot& up = toward(root);

  // The union of the members' paths to the root, plus each member's port.
  std::vector<bool> in_tree(graph_.switch_count(), false);
  std::vector<bool> has_member(graph_.switch_count(), false);
  in_tree[root] = true;
  for (const Attachment& a : attached) {
    if (a.sw != root && up.parent[a.sw] == kNoSwitch) continue;  // in another part of a split fabric
    tree.ports[graph_.node_of(a.sw).value].set(a.port);
    has_member[a.sw] = true;
    for (SwitchId at = a.sw; !in_tree[at]; at = up.parent[at]) {
      in_tree[at] = true;
      tree.ports[graph_.node_of(up.parent[at]).value].set(up.down_port[at]);
      tree.ports[graph_.node_of(at).value].set(up.up_port[at]);
    }
  }

  // Cut the stem: while the top switch has no member and one tree port, the
  // tree starts one switch lower.
  const SwitchGraph& g = graph_.graph();
  for (SwitchId top = root; !has_member[top];) {
    PortMask& mask = tree.ports[graph_.node_of(top).value];
    if (mask.count() != 1) break;
    uint8_t only = 0;
    for_each_port(mask, [&](uint8_t p) { only = p; });
    SwitchId child = kNoSwitch;
    uint8_t child_port = 0;
    for (const auto& e : boost::make_iterator_range(boost::out_edges(top, g))) {
      if (g[e].port != only) continue;
      child = boost::target(e, g);
      child_port = g[e].remote_port;
    }
    if (child == kNoSwitch) break;
    mask = PortMask{};
    tree.ports[graph_.node_of(child).value].reset(child_port);
    top = child;
  }
  return tree;
}

Result<MulticastTree> shortest_path_multicast_tree(const RoutingInput& input, Lid mlid,
                                                   std::span<const PortRef> members) {
  if (input.multicast != nullptr && &input.multicast->graph() == &input.graph) {
    return input.multicast->tree(mlid, members);
  }
  MulticastTreeBuilder builder(input.graph);
  return builder.tree(mlid, members);
}

}  // namespace ibsm::routing
