#include "sm/fabric/compare.h"

#include <optional>
#include <unordered_map>

#include <fmt/format.h>

namespace ibsm {
namespace {

// Node GUID -> index, including a zero GUID (ibsim's first router has one);
// nullopt when a GUID repeats, since nodes could then not be paired.
std::optional<std::unordered_map<Guid, NodeIndex>> index_by_guid(const Fabric& f, std::string& duplicate) {
  std::unordered_map<Guid, NodeIndex> map;
  map.reserve(f.node_count());
  for (size_t i = 0; i < f.node_count(); ++i) {
    const Guid g = f.nodes()[i].node_guid;
    if (!map.emplace(g, NodeIndex{static_cast<uint32_t>(i)}).second) {
      duplicate = fmt::format("{}", g);
      return std::nullopt;
    }
  }
  return map;
}

std::string label(const Node& n) {
  const std::string_view text = n.name.empty() ? std::string_view(n.description) : std::string_view(n.name);
  return fmt::format("{} (\"{}\")", n.node_guid, text);
}

std::string peer(const Fabric& f, const Port& p) {
  if (!p.connected()) return "free";
  return fmt::format("cabled to {}[{}]", f.node(p.remote_node).node_guid, p.remote_port);
}

bool fail(std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return false;
}

}  // namespace

bool same_topology(const Fabric& a, const Fabric& b, std::string* why) {
  std::string duplicate;
  const auto map_a = index_by_guid(a, duplicate);
  if (!map_a) return fail(why, fmt::format("node guid {} appears twice in a", duplicate));
  const auto map_b = index_by_guid(b, duplicate);
  if (!map_b) return fail(why, fmt::format("node guid {} appears twice in b", duplicate));

  for (const Node& na : a.nodes()) {
    auto it = map_b->find(na.node_guid);
    if (it == map_b->end()) return fail(why, fmt::format("node {} is in a but not in b", label(na)));
    const Node& nb = b.node(it->second);
    const std::string who = fmt::format("node {}", label(na));
    if (na.type != nb.type) {
      return fail(why, fmt::format("{}: type {} in a, {} in b", who, node_type_name(na.type), node_type_name(nb.type)));
    }
    if (na.num_ports != nb.num_ports) {
      return fail(why, fmt::format("{}: {} ports in a, {} in b", who, na.num_ports, nb.num_ports));
    }
    if (na.description != nb.description) {
      return fail(why, fmt::format("{}: description \"{}\" in a, \"{}\" in b", who, na.description, nb.description));
    }
    for (unsigned p = na.is_switch() ? 0 : 1; p <= na.num_ports; ++p) {
      const Port& pa = na.port(static_cast<uint8_t>(p));
      const Port& pb = nb.port(static_cast<uint8_t>(p));
      // Switch ports 1..n carry port 0's GUID by definition; compare it once.
      if ((p == 0 || !na.is_switch()) && pa.guid != pb.guid) {
        return fail(why, fmt::format("{}: port {} guid {} in a, {} in b", who, p, pa.guid, pb.guid));
      }
      if (p == 0) continue;
      const bool same_peer =
          pa.connected() == pb.connected() &&
          (!pa.connected() || (a.node(pa.remote_node).node_guid == b.node(pb.remote_node).node_guid &&
                               pa.remote_port == pb.remote_port));
      if (!same_peer) {
        return fail(why, fmt::format("{}: port {} is {} in a but {} in b", who, p, peer(a, pa), peer(b, pb)));
      }
    }
  }
  // Every node of a has its partner in b and GUIDs are unique on both sides,
  // so equal counts leave nothing in b unmatched.
  if (a.node_count() != b.node_count()) {
    for (const Node& nb : b.nodes()) {
      if (map_a->count(nb.node_guid) == 0) return fail(why, fmt::format("node {} is in b but not in a", label(nb)));
    }
  }
  if (why) why->clear();
  return true;
}

}  // namespace ibsm
