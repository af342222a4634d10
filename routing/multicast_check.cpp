#include "routing/multicast_check.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "routing/graph.h"

namespace ibsm::routing {
namespace {

class Flooder {
 public:
  Flooder(const Fabric& fabric, const MulticastTables& tables, const MulticastCheckOptions& options,
          MulticastCheck& result)
      : fabric_(fabric), tables_(tables), options_(options), r_(result), seen_(fabric.node_count(), 0) {}

  void group(const MulticastGroupMembers& g) {
    ++r_.groups;
    // The member ports that can be judged: a switch's port 0, or a port
    // cabled to a switch by a usable cable.
    std::set<PortRef> members;
    for (const PortRef& m : g.members) {
      if (!m.node.valid() || m.node.value >= fabric_.node_count()) continue;
      const Node& node = fabric_.node(m.node);
      const bool attached = node.is_switch() ? m.port == 0
                                             : m.port != 0 && m.port <= node.num_ports && cable_usable(fabric_, m) &&
                                                   fabric_.node(node.port(m.port).remote_node).is_switch();
      if (attached) {
        members.insert(m);
      } else {
        ++r_.detached_members;
      }
    }
    size_t sources = 0;
    for (const PortRef& from : members) {
      if (options_.max_sources != 0 && sources++ == options_.max_sources) break;
      flood(g.mlid, from, members);
    }
  }

 private:
  void problem(std::string text) {
    if (r_.problems.size() < options_.max_problems) r_.problems.push_back(std::move(text));
  }
  std::string name(PortRef p) const {
    const Node& n = fabric_.node(p.node);
    return fmt::format("{} {} port {}", n.is_switch() ? "switch" : "ca", n.node_guid, p.port);
  }

  void flood(Lid mlid, PortRef from, const std::set<PortRef>& members) {
    ++r_.floods;
    ++stamp_;
    std::vector<std::pair<NodeIndex, uint8_t>> todo;  // (switch, in port)
    const Node& source = fabric_.node(from.node);
    if (source.is_switch()) {
      todo.push_back({from.node, 0});
    } else {
      const Port& p = source.port(from.port);
      todo.push_back({p.remote_node, p.remote_port});
    }
    std::vector<PortRef> reached;
    while (!todo.empty()) {
      const auto [sw, in] = todo.back();
      todo.pop_back();
      if (seen_[sw.value] == stamp_) {
        ++r_.duplicates;
        problem(fmt::format("mlid {:#06x} from {}: switch {} gets the packet twice (a loop or two paths)", mlid.value,
                            name(from), fabric_.node(sw).node_guid));
        continue;
      }
      seen_[sw.value] = stamp_;
      const Node& node = fabric_.node(sw);
      const PortMask mask = tables_.ports(sw, mlid);
      if (in != 0 && !mask.test(in)) {
        ++r_.leaks;
        problem(fmt::format("mlid {:#06x} from {}: {} forwards into {}, which its entry does not list", mlid.value,
                            name(from), name(PortRef{node.port(in).remote_node, node.port(in).remote_port}),
                            name(PortRef{sw, in})));
      }
      for_each_port(mask, [&](uint8_t q) {
        if (q == in) return;
        if (q == 0) {
          reached.push_back(PortRef{sw, 0});
          return;
        }
        const PortRef out{sw, q};
        if (q > node.num_ports || !cable_usable(fabric_, out)) {
          ++r_.leaks;
          problem(fmt::format("mlid {:#06x}: {} is in the entry but carries no link", mlid.value, name(out)));
          return;
        }
        const Port& port = node.port(q);
        if (fabric_.node(port.remote_node).is_switch()) {
          todo.push_back({port.remote_node, port.remote_port});
        } else {
          reached.push_back(PortRef{port.remote_node, port.remote_port});
        }
      });
    }
    // Every other member exactly once, nobody else.
    std::sort(reached.begin(), reached.end());
    for (size_t i = 0; i < reached.size(); ++i) {
      const PortRef& p = reached[i];
      if (i > 0 && reached[i - 1] == p) {
        ++r_.duplicates;
        problem(fmt::format("mlid {:#06x} from {}: {} gets two copies", mlid.value, name(from), name(p)));
      } else if (!members.contains(p) || p == from) {
        ++r_.leaks;
        problem(fmt::format("mlid {:#06x} from {}: {} gets a copy but is no member", mlid.value, name(from), name(p)));
      } else {
        ++r_.deliveries;
      }
    }
    for (const PortRef& m : members) {
      if (m == from || std::binary_search(reached.begin(), reached.end(), m)) continue;
      ++r_.missed;
      problem(fmt::format("mlid {:#06x} from {}: member {} is not reached", mlid.value, name(from), name(m)));
    }
  }

  const Fabric& fabric_;
  const MulticastTables& tables_;
  const MulticastCheckOptions& options_;
  MulticastCheck& r_;
  std::vector<uint64_t> seen_;  // by NodeIndex: the flood that last reached it
  uint64_t stamp_ = 0;
};

}  // namespace

std::string MulticastCheck::to_string() const {
  std::string s = fmt::format("multicast check: {} groups, {} floods, {} deliveries", groups, floods, deliveries);
  if (detached_members != 0) s += fmt::format(", {} members without a link", detached_members);
  if (ok()) return s + ": ok";
  return s + fmt::format(": {} missed, {} duplicates, {} leaks", missed, duplicates, leaks);
}

MulticastCheck check_multicast(const Fabric& fabric, const MulticastTables& tables,
                               std::span<const MulticastGroupMembers> groups, const MulticastCheckOptions& options) {
  MulticastCheck result;
  Flooder flooder(fabric, tables, options, result);
  for (const MulticastGroupMembers& g : groups) flooder.group(g);
  return result;
}

}  // namespace ibsm::routing
