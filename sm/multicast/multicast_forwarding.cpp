#include "sm/multicast/multicast_forwarding.h"

#include <fmt/format.h>

namespace ibsm {

Result<MulticastForwarding> MulticastForwarding::create(std::shared_ptr<const SubnetSnapshot> subnet,
                                                        std::shared_ptr<const routing::RoutingEngine> engine) {
  if (!subnet) return invalid_argument_error("no subnet snapshot");
  MulticastForwarding f;
  f.subnet_ = std::move(subnet);
  f.engine_ = std::move(engine);
  f.tables_ = MulticastTables(f.subnet_->fabric.node_count());
  return f;
}

Status MulticastForwarding::prepare_trees() {
  if (builder_) return {};
  auto graph = routing::RoutingGraph::build(subnet_->fabric);
  if (!graph.ok()) return graph.status();
  auto built = std::make_unique<routing::RoutingGraph>(std::move(*graph));
  std::vector<routing::SwitchId> roots;
  if (engine_) roots = engine_->multicast_roots(routing::RoutingInput{*built});
  for (routing::SwitchId r : roots) {
    if (r >= built->switch_count()) return internal_error(fmt::format("multicast root {} is no switch", r));
  }
  graph_ = std::move(built);
  builder_ = std::make_unique<routing::MulticastTreeBuilder>(*graph_, std::move(roots));
  return {};
}

Status MulticastForwarding::update(std::span<const MulticastGroupMembers> groups) {
  Status first_error;
  const Fabric& fabric = subnet_->fabric;
  for (const MulticastGroupMembers& g : groups) {
    if (!g.mlid.is_multicast()) {
      if (first_error.ok()) first_error = invalid_argument_error(fmt::format("{} is no multicast lid", g.mlid.value));
      continue;
    }
    Group next;
    next.members = g.members;
    if (!g.members.empty()) {
      if (Status ready = prepare_trees(); !ready.ok()) {
        if (first_error.ok()) first_error = ready;
        continue;
      }
      const routing::RoutingInput input{.graph = *graph_, .multicast = builder_.get()};
      auto tree = engine_ ? engine_->multicast_tree(input, g.mlid, g.members)
                          : routing::shortest_path_multicast_tree(input, g.mlid, g.members);
      if (tree.ok() && tree->ports.size() != fabric.node_count()) {
        tree = internal_error(fmt::format("the tree of mlid {:#06x} covers {} nodes, the fabric has {}", g.mlid.value,
                                          tree->ports.size(), fabric.node_count()));
      }
      if (!tree.ok()) {
        if (first_error.ok()) first_error = tree.status();
        continue;
      }
      for (uint32_t n = 0; n < fabric.node_count(); ++n) {
        if (tree->ports[n].empty() || !fabric.node(NodeIndex{n}).is_switch()) continue;
        next.switches.push_back(NodeIndex{n});
      }
      // Entries go in after the old ones are out: same switches, new masks.
      auto old = groups_.find(g.mlid.value);
      if (old != groups_.end())
        for (NodeIndex sw : old->second.switches) tables_.set(sw, g.mlid, PortMask{});
      for (NodeIndex sw : next.switches) tables_.set(sw, g.mlid, tree->ports[sw.value]);
    } else {
      auto old = groups_.find(g.mlid.value);
      if (old != groups_.end())
        for (NodeIndex sw : old->second.switches) tables_.set(sw, g.mlid, PortMask{});
    }
    if (next.members.empty()) {
      groups_.erase(g.mlid.value);
    } else {
      groups_[g.mlid.value] = std::move(next);
    }
  }
  return first_error;
}

std::vector<MulticastGroupMembers> MulticastForwarding::groups() const {
  std::vector<MulticastGroupMembers> out;
  out.reserve(groups_.size());
  for (const auto& [mlid, g] : groups_) out.push_back({Lid{mlid}, g.members});
  return out;
}

}  // namespace ibsm
