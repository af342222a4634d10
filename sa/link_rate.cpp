#include "sa/link_rate.h"

#include "sm/fabric/ib_rate_mtu.h"

namespace ibsm::sa {

// The one table of rate codes lives with the fabric model (ib_rate_mtu.h).
uint32_t rate_mbps(uint8_t code) { return ibsm::rate_mbps(code); }

uint8_t rate_code_at_most(uint32_t mbps) {
  uint8_t best = 0;
  for (const IbRate& r : ib_rates())  // ascending by speed
    if (r.mbps <= mbps) best = r.code;
  return best;
}

uint8_t rate_code_below(uint8_t code) {
  const uint32_t mbps = rate_mbps(code);
  return mbps == 0 ? 0 : rate_code_at_most(mbps - 1);
}

uint32_t link_mbps(uint8_t width, uint8_t speed, uint8_t speed_ext) {
  uint32_t lanes = 0;
  switch (width) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return 0;
  }
  uint32_t lane = 0;
  if (speed_ext != 0) {
    switch (speed_ext) {
      case 1: lane = 14000; break;   // FDR (14.0625 Gb/s, nominally 14)
      case 2: lane = 25000; break;   // EDR
      case 4: lane = 50000; break;   // HDR
      case 8: lane = 100000; break;  // NDR
      default: return 0;
    }
  } else {
    switch (speed) {
      case 1: lane = 2500; break;
      case 2: lane = 5000; break;
      case 4: lane = 10000; break;
      default: return 0;
    }
  }
  return lanes * lane;
}

uint8_t port_rate_code(const wire::PortInfo& info) {
  const bool ext = (info.capability_mask & wire::port_cap::is_extended_speeds_supported) != 0;
  return rate_code_at_most(link_mbps(info.link_width_active, info.link_speed_active,
                                     ext ? info.link_speed_ext_active : uint8_t{0}));
}

}  // namespace ibsm::sa
