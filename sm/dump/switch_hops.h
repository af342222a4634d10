// Hop counts between switches, as OpenSM's hop matrix holds them for the
// "Hops" and "Optimal" columns of opensm.fdbs: the least number of links from
// a switch to another, and the number of links a packet takes when it leaves
// through a given port. Only switch-to-switch links whose two ends are up
// (state not Down) carry traffic; CAs never forward.
#pragma once

#include <cstdint>
#include <vector>

#include "sm/fabric/fabric.h"

namespace ibsm::dump {

class SwitchHops {
 public:
  static constexpr uint8_t no_path = 0xFF;  // OpenSM's OSM_NO_PATH

  explicit SwitchHops(const Fabric& fabric);

  // Links on a shortest path from switch `from` to switch `to`; 0 to itself.
  uint8_t least(NodeIndex from, NodeIndex to) const;
  // Links from switch `from` to switch `to` leaving through `port`: port 0
  // stands for the switch itself (OpenSM keeps the least count there); a port
  // cabled to another switch costs one link plus that switch's least count;
  // any other port has no path.
  uint8_t via(NodeIndex from, uint8_t port, NodeIndex to) const;

 private:
  size_t ordinal(NodeIndex n) const;

  const Fabric& fabric_;
  std::vector<uint32_t> ordinal_;  // node index -> switch ordinal (UINT32_MAX for non-switches)
  size_t count_ = 0;
  std::vector<uint8_t> least_;  // count_ x count_, row = from
};

}  // namespace ibsm::dump
