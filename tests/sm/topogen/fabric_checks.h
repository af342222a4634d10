// Structural checks on generated fabrics, shared by the topogen tests.
#pragma once

#include <cstdint>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sm/fabric/fabric.h"
#include "sm/topogen/generators.h"

namespace ibsm::topogen::testing {

inline NodeIndex named(const Fabric& f, std::string_view name) {
  auto found = f.find_by_name(name);
  INFO("node " << name);
  REQUIRE(found.has_value());
  return *found;
}

inline unsigned cabled_ports(const Node& n) {
  unsigned count = 0;
  for (unsigned p = 1; p <= n.num_ports; ++p) count += n.port(static_cast<uint8_t>(p)).connected();
  return count;
}

// Neighbour nodes of `i`, with the number of cables to each.
inline std::map<NodeIndex, unsigned> neighbours(const Fabric& f, NodeIndex i) {
  std::map<NodeIndex, unsigned> out;
  const Node& n = f.node(i);
  for (unsigned p = 1; p <= n.num_ports; ++p) {
    const Port& port = n.port(static_cast<uint8_t>(p));
    if (port.connected()) ++out[port.remote_node];
  }
  return out;
}

// Switch neighbours only (cables to CAs left out).
inline std::map<NodeIndex, unsigned> switch_neighbours(const Fabric& f, NodeIndex i) {
  auto all = neighbours(f, i);
  std::erase_if(all, [&](const auto& kv) { return !f.node(kv.first).is_switch(); });
  return all;
}

// Breadth-first search from node 0 over cables: how many nodes it reaches.
inline size_t reachable_from_first(const Fabric& f) {
  if (f.node_count() == 0) return 0;
  std::vector<bool> seen(f.node_count(), false);
  std::queue<NodeIndex> todo;
  todo.push(NodeIndex{0});
  seen[0] = true;
  size_t count = 1;
  while (!todo.empty()) {
    const NodeIndex at = todo.front();
    todo.pop();
    const Node& n = f.node(at);
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      const Port& port = n.port(static_cast<uint8_t>(p));
      if (port.connected() && !seen[port.remote_node.value]) {
        seen[port.remote_node.value] = true;
        ++count;
        todo.push(port.remote_node);
      }
    }
  }
  return count;
}

inline bool connected(const Fabric& f) { return reachable_from_first(f) == f.node_count(); }

// Every cable is seen from both ends, with the generated width and speed,
// and every node has the identities the builder promises.
inline void check_wiring_and_identities(const Fabric& f, const LinkOptions& link = {}) {
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    INFO("node " << n.name);
    CHECK(n.description == n.name);
    CHECK(n.system_guid == n.node_guid);
    CHECK(n.ports.size() == size_t{n.num_ports} + 1u);
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      const Port& port = n.port(static_cast<uint8_t>(p));
      CHECK(port.guid.value == n.node_guid.value + (n.is_switch() ? 0 : p));
      if (!port.connected()) continue;
      const Port& back = f.node(port.remote_node).port(port.remote_port);
      CHECK(back.remote_node.value == i);
      CHECK(back.remote_port == p);
      CHECK(port.width_active == link.width);
      CHECK(port.speed_active == link.speed);
      CHECK(port.speed_ext_active == link.speed_ext);
      CHECK(port.state == PortState::init);
    }
  }
}

inline void check_counts(const Fabric& f, const SizeEstimate& e) {
  CHECK(f.switch_count() == e.switches);
  CHECK(f.ca_count() == e.cas);
  const auto links = f.links();
  CHECK(links.size() == e.links);
  size_t switch_links = 0;
  for (const Link& l : links) switch_links += f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch();
  CHECK(switch_links == e.switch_links);
  uint64_t switch_ports = 0, ca_ports = 0;
  for (const Node& n : f.nodes()) (n.is_switch() ? switch_ports : ca_ports) += n.num_ports;
  CHECK(switch_ports == e.switch_ports);
  CHECK(ca_ports == e.ca_ports);
}

// A text image of the whole fabric, to compare two builds.
inline std::string fingerprint(const Fabric& f) {
  std::string out;
  for (const Node& n : f.nodes()) out += fmt::format("{} {:x} {}\n", n.name, n.node_guid.value, n.num_ports);
  for (const Link& l : f.links()) out += fmt::format("{}:{}-{}:{}\n", l.a.node.value, l.a.port, l.b.node.value, l.b.port);
  return out;
}

template <typename T>
T value_of(Result<T> r) {
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  return std::move(r).value();
}

// The message of a failed result, checked to be invalid_argument.
template <typename T>
std::string error_of(const Result<T>& r) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::invalid_argument);
  return r.status().message();
}

}  // namespace ibsm::topogen::testing
