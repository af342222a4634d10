// Brings the sim_chain.net fabric up the way an SM would, through SMPs from a
// client at H1: LIDs, MasterSMLID, LinearFDBTop, LFTs computed here by
// breadth-first search over the topology model, and optionally every link
// Armed then Active.
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "mad/wire/linear_forwarding_table.h"
#include "mad/wire/port_info.h"
#include "mad/wire/switch_info.h"
#include "tests/mad/sim/sim_harness.h"

namespace ibsm::sim_test {

struct PortAddress {
  std::string node;
  uint8_t port = 0;
  std::string dr;  // directed route from H1 port 1
  uint16_t lid = 0;
};

// Every LID-carrying port of sim_chain.net, in LID order.
inline std::vector<PortAddress> chain_addresses() {
  return {{"H1", 1, "0", 1},       {"S1", 0, "0,1", 2},     {"S2", 0, "0,1,2", 3},  {"S3", 0, "0,1,2,2", 4},
          {"H3", 1, "0,1,2,3", 5}, {"H3", 2, "0,1,2,4", 6}, {"H2", 1, "0,1,2,2,2", 7}};
}

// The port of switch `from` on a shortest path to switch `to` (0 when equal).
inline uint8_t first_hop(const Fabric& f, NodeIndex from, NodeIndex to) {
  if (from == to) return 0;
  std::map<uint32_t, uint8_t> first;  // node -> first port out of `from`
  std::deque<NodeIndex> queue{from};
  first[from.value] = 0;
  while (!queue.empty()) {
    NodeIndex n = queue.front();
    queue.pop_front();
    const Node& node = f.node(n);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      if (!port.connected() || !f.node(port.remote_node).is_switch()) continue;
      if (first.count(port.remote_node.value)) continue;
      first[port.remote_node.value] = n == from ? p : first[n.value];
      if (port.remote_node == to) return first[to.value];
      queue.push_back(port.remote_node);
    }
  }
  FAIL("no path between switches");
  return 0;
}

// The LFT block 0 of switch `sw` for the addresses (entries past them 0xFF).
inline wire::LinearForwardingTable lft_for(const Fabric& f, NodeIndex sw, const std::vector<PortAddress>& addrs) {
  wire::LinearForwardingTable t;
  t.ports.fill(wire::lft_unreachable_port);
  for (const PortAddress& a : addrs) {
    const NodeIndex dest = node_named(f, a.node);
    uint8_t out = 0;
    if (f.node(dest).is_switch()) {
      out = first_hop(f, sw, dest);
    } else {
      const Port& ca_port = f.node(dest).port(a.port);
      out = ca_port.remote_node == sw ? ca_port.remote_port : first_hop(f, sw, ca_port.remote_node);
    }
    t.ports[a.lid] = out;
  }
  return t;
}

inline wire::PortInfo port_info_of(const MadPacket& p) { return attribute_of<wire::PortInfo>(p, wire::decode_port_info); }

// Get, change, Set a PortInfo (state fields left at "no change").
template <typename Change>
inline MadPacket modify_port_info(Client& c, const std::string& dr, uint8_t port, Change change) {
  auto got = c.dr_get(wire::smp_attr::port_info, port, dr);
  REQUIRE(got.ok());
  wire::PortInfo pi = port_info_of(*got);
  pi.port_state = PortState::no_change;
  pi.port_phys_state = PhysState::no_change;
  change(pi);
  std::array<uint8_t, wire::port_info_size> payload{};
  wire::encode(pi, payload);
  auto set = c.dr_set(wire::smp_attr::port_info, port, dr, payload);
  REQUIRE(set.ok());
  return *set;
}

inline void set_port_state(Client& c, const std::string& dr, uint8_t port, PortState state) {
  MadPacket r = modify_port_info(c, dr, port, [&](wire::PortInfo& pi) { pi.port_state = state; });
  REQUIRE(smp_status(r) == 0);
}

struct SetupOptions {
  bool activate = false;
};

// LIDs (MasterSMLID = H1's), LinearFDBTop and LFT block 0 on every switch.
inline void configure_chain(const Fabric& topo, Client& sm, SetupOptions options = {}) {
  const std::vector<PortAddress> addrs = chain_addresses();
  for (const PortAddress& a : addrs) {
    MadPacket r = modify_port_info(sm, a.dr, a.port, [&](wire::PortInfo& pi) {
      pi.lid = Lid{a.lid};
      pi.master_sm_lid = Lid{1};
    });
    REQUIRE(smp_status(r) == 0);
    REQUIRE(port_info_of(r).lid == Lid{a.lid});
  }
  for (const PortAddress& a : addrs) {
    const NodeIndex n = node_named(topo, a.node);
    if (!topo.node(n).is_switch()) continue;
    auto si = sm.dr_get(wire::smp_attr::switch_info, 0, a.dr);
    REQUIRE(si.ok());
    wire::SwitchInfo info = attribute_of<wire::SwitchInfo>(*si, wire::decode_switch_info);
    info.linear_fdb_top = addrs.back().lid;
    info.port_state_change = true;  // writing 1 clears it
    std::array<uint8_t, wire::switch_info_size> payload{};
    wire::encode(info, payload);
    REQUIRE(sm.dr_set(wire::smp_attr::switch_info, 0, a.dr, payload).ok());
    std::array<uint8_t, wire::lft_block_size> block{};
    wire::encode(lft_for(topo, n, addrs), block);
    auto lft = sm.dr_set(wire::smp_attr::linear_forwarding_table, 0, a.dr, block);
    REQUIRE(lft.ok());
    REQUIRE(smp_status(*lft) == 0);
  }
  if (!options.activate) return;
  // Every cabled port: Armed, then Active (IBA: one step at a time).
  for (PortState target : {PortState::armed, PortState::active}) {
    for (const PortAddress& a : addrs) {
      const NodeIndex n = node_named(topo, a.node);
      const Node& node = topo.node(n);
      if (!node.is_switch()) {
        set_port_state(sm, a.dr, a.port, target);
        continue;
      }
      for (uint8_t p = 1; p <= node.num_ports; ++p)
        if (node.port(p).connected()) set_port_state(sm, a.dr, p, target);
    }
  }
}

}  // namespace ibsm::sim_test
