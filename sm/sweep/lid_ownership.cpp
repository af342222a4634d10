#include "sm/sweep/lid_ownership.h"

#include <bit>
#include <unordered_map>

#include <fmt/format.h>

namespace ibsm {

void apply_guid2lid(Fabric& fabric, const Guid2Lid& map) {
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    Node& n = fabric.node(NodeIndex{i});
    for (uint8_t p = n.is_switch() ? 0 : 1; p <= n.num_ports; ++p) {
      Port& port = n.port(p);
      const auto it = map.find(port.guid);
      if (it == map.end()) continue;
      port.base_lid = it->second.min;
      port.lmc = static_cast<uint8_t>(std::countr_zero(it->second.count()));
    }
  }
}

std::vector<std::string> lid_problems(const Fabric& fabric) {
  std::vector<std::string> problems;
  std::unordered_map<uint16_t, PortRef> owner;
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    const Node& n = fabric.node(NodeIndex{i});
    for (uint8_t p = n.is_switch() ? 0 : 1; p <= (n.is_switch() ? 0 : n.num_ports); ++p) {
      const Port& port = n.port(p);
      if (!n.is_switch() && !port.connected()) continue;
      if (port.base_lid.value == 0) {
        problems.push_back(fmt::format("{} port {} ('{}') has no lid", n.node_guid, p, n.name));
        continue;
      }
      for (uint32_t k = 0; k < (1u << port.lmc); ++k) {
        uint16_t lid = static_cast<uint16_t>(port.base_lid.value + k);
        auto [it, fresh] = owner.emplace(lid, PortRef{NodeIndex{i}, p});
        if (!fresh)
          problems.push_back(fmt::format("lid {} is held by {} port {} and {} port {}", lid, n.node_guid, p,
                                         fabric.node(it->second.node).node_guid, it->second.port));
      }
    }
  }
  return problems;
}

std::optional<PortRef> port_with_lid(const Fabric& fabric, Lid lid) {
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    const Node& n = fabric.node(NodeIndex{i});
    // The last port of the first node that has one, as `ibsm check --trace` always took it.
    std::optional<PortRef> found;
    for (uint8_t p = n.is_switch() ? 0 : 1; p <= (n.is_switch() ? 0 : n.num_ports); ++p)
      if (n.port(p).base_lid.value != 0 && lid.value >= n.port(p).base_lid.value &&
          lid.value < n.port(p).base_lid.value + (1u << n.port(p).lmc))
        found = PortRef{NodeIndex{i}, p};
    if (found) return found;
  }
  return std::nullopt;
}

}  // namespace ibsm
