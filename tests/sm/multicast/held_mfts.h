// What the switches' MFTs of a SimFabric hold, read straight from the SMAs,
// by the NodeIndex of an SM's snapshot (discovery order, not the netfile's).
#pragma once

#include "mad/sim/sim_fabric.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm::test {

inline MulticastTables held_mfts(const SimFabric& sim, const Fabric& snapshot) {
  const Fabric& f = sim.topology();
  MulticastTables t(snapshot.node_count());
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    if (!node.is_switch()) continue;
    const auto found = snapshot.find_by_node_guid(node.node_guid);
    if (!found) continue;
    const sim::SwitchRecord* sw = sim.state().switch_of(i);
    const uint8_t positions = sim::SimState::mft_positions(node.num_ports);
    for (size_t at = 0; at + 64 <= sw->mft.size(); at += 64) {
      const size_t block = at / 64 / positions, position = at / 64 % positions;
      for (size_t e = 0; e < 32; ++e) {
        const uint16_t bits = static_cast<uint16_t>(sw->mft[at + 2 * e] << 8 | sw->mft[at + 2 * e + 1]);
        if (bits == 0) continue;
        const Lid mlid{static_cast<uint16_t>(0xC000 + block * 32 + e)};
        PortMask m = t.ports(*found, mlid);
        m.set_position_bits(static_cast<unsigned>(position), bits);
        t.set(*found, mlid, m);
      }
    }
  }
  return t;
}

}  // namespace ibsm::test
