// The VLs an engine that assigns SLs may spread its paths over: the
// configured ceiling (max_op_vls) narrowed by what the ports can run
// (PortInfo:VLCap). An engine that needs more returns a Status saying so, and
// the chain moves on (routing/chain.h).
#pragma once

#include <cstdint>

#include "routing/engine.h"

namespace ibsm::routing {

// Data VLs of a VLCap / OperationalVLs / max_op_vls code (IBA 14.2.5.6:
// 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14): 1, 2, 4, 8, 15; 0 for 0 or
// a reserved code.
uint8_t data_vls_of_code(uint8_t code);

// input.max_vls, narrowed to the fewest VLs any usable port with a known
// VLCap (switch ports with a cable, CA and router ports) can run: a path
// crosses such ports, and a VL one of them lacks would drop its packets.
// Ports whose VLCap is unknown (0, from a topology file) narrow nothing.
uint8_t vl_budget(const RoutingInput& input);

}  // namespace ibsm::routing
