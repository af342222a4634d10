// Helpers for the LID assignment tests: small fabrics built straight from the
// Fabric API, and the properties every assignment must have.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include <catch2/catch.hpp>

#include "sm/fabric/fabric.h"
#include "sm/sweep/lid_assignment.h"

namespace ibsm::lid_testing {

inline constexpr uint64_t kSwitchGuid = 0x0002c90300000000ULL;
inline constexpr uint64_t kCaGuid = 0x0002c90400000000ULL;

// A chain of `switches` switches, each with `hosts` single-port CAs on ports
// 1..hosts and its neighbours on the last two ports. Switch i has node GUID
// kSwitchGuid + i; host j has kCaGuid + 0x100 * j and port GUID that + 1.
// With `reverse_guids` the GUIDs run backwards, so GUID order is not build order.
inline Fabric chain(uint32_t switches, uint32_t hosts, bool reverse_guids = false) {
  Fabric f;
  const uint32_t total_hosts = switches * hosts;
  std::vector<NodeIndex> sw;
  uint32_t host = 0;
  for (uint32_t s = 0; s < switches; ++s) {
    Node n;
    n.type = NodeType::switch_;
    n.num_ports = static_cast<uint8_t>(hosts + 2);
    n.node_guid = Guid{kSwitchGuid + (reverse_guids ? switches - 1 - s : s)};
    n.ports.resize(n.num_ports + 1u);
    for (Port& p : n.ports) p.guid = n.node_guid;
    auto idx = f.add_node(std::move(n));
    REQUIRE(idx.ok());
    sw.push_back(*idx);
    if (s > 0) REQUIRE(f.connect({sw[s - 1], static_cast<uint8_t>(hosts + 2)}, {*idx, static_cast<uint8_t>(hosts + 1)}).ok());
    for (uint32_t h = 0; h < hosts; ++h, ++host) {
      Node ca;
      ca.type = NodeType::ca;
      ca.num_ports = 1;
      ca.node_guid = Guid{kCaGuid + 0x100ULL * (reverse_guids ? total_hosts - 1 - host : host)};
      ca.ports.resize(2);
      ca.ports[1].guid = Guid{ca.node_guid.value + 1};
      auto c = f.add_node(std::move(ca));
      REQUIRE(c.ok());
      REQUIRE(f.connect({*idx, static_cast<uint8_t>(h + 1)}, {*c, 1}).ok());
    }
  }
  return f;
}

// The port that holds the LIDs of node `n`: port 0 of a switch, port 1 of a CA.
inline Port& lid_port(Fabric& f, NodeIndex n) {
  Node& node = f.node(n);
  return node.port(node.is_switch() ? 0 : 1);
}

// Sets the LID a node's LID port holds (on every port of a switch, as its SMA would report).
inline void hold(Fabric& f, NodeIndex n, uint16_t lid, uint8_t lmc = 0) {
  Node& node = f.node(n);
  if (node.is_switch()) {
    for (Port& p : node.ports) {
      p.base_lid = Lid{lid};
      p.lmc = lmc;
    }
  } else {
    node.port(1).base_lid = Lid{lid};
    node.port(1).lmc = lmc;
  }
}

inline void clear_lids(Fabric& f) {
  for (uint32_t i = 0; i < f.node_count(); ++i) hold(f, NodeIndex{i}, 0);
}

inline LidAssignment must(Result<LidAssignment> r) {
  INFO((r.ok() ? std::string() : r.status().to_string()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Every switch and cabled CA port has exactly one block; the blocks are
// aligned, inside the range, disjoint, with the LMC the options ask for; the
// map to persist holds every port's block.
inline void check_valid(const Fabric& f, const LidAssignment& a, const LidOptions& o) {
  size_t expected = 0;
  for (const Node& n : f.nodes()) {
    if (n.is_switch()) {
      ++expected;
    } else {
      for (uint8_t p = 1; p <= n.num_ports; ++p) expected += n.port(p).connected() ? 1 : 0;
    }
  }
  REQUIRE(a.ports.size() == expected);
  std::vector<uint8_t> used(0x10000, 0);
  uint16_t top = 0;
  for (size_t i = 0; i < a.ports.size(); ++i) {
    const AssignedLid& p = a.ports[i];
    INFO("guid " << fmt::format("{}", p.guid) << " lid " << p.base.value << " lmc " << unsigned{p.lmc});
    if (i > 0) REQUIRE(a.ports[i - 1].guid < p.guid);
    const Node& n = f.node(p.where.node);
    REQUIRE(n.port(p.where.port).guid == p.guid);
    const uint8_t want_lmc = p.is_switch && !(o.lmc_esp0 && n.enhanced_port0) ? 0 : o.lmc;
    REQUIRE(p.lmc == want_lmc);
    REQUIRE(p.base.value % p.count() == 0);
    REQUIRE(p.base >= o.min_lid);
    REQUIRE(p.base.value + p.count() - 1 <= o.max_lid.value);
    for (uint32_t lid = p.base.value; lid < p.base.value + p.count(); ++lid) {
      REQUIRE(used[lid] == 0);
      used[lid] = 1;
    }
    top = std::max<uint16_t>(top, static_cast<uint16_t>(p.base.value + p.count() - 1));
    auto entry = a.guid2lid.find(p.guid);
    REQUIRE(entry != a.guid2lid.end());
    REQUIRE(entry->second == LidRange{p.base, Lid{static_cast<uint16_t>(p.base.value + p.count() - 1)}});
    REQUIRE(a.find(p.guid) == &p);
  }
  REQUIRE(a.top.value == top);
  REQUIRE(a.kept + a.persisted + a.fresh == a.ports.size());
}

// Port GUID -> base LID, to compare two assignments.
inline std::map<Guid, Lid> lids_of(const LidAssignment& a) {
  std::map<Guid, Lid> m;
  for (const AssignedLid& p : a.ports) m[p.guid] = p.base;
  return m;
}

}  // namespace ibsm::lid_testing
