// How a MAD crosses the simulated fabric: LID routing through the switches'
// linear forwarding tables, and directed routing by an SMP's paths with the
// hop-pointer rules of IBA 14.2.2. Each walk returns where the MAD arrived (a
// node and the port it entered) or why it was dropped.
#pragma once

#include <cstdint>
#include <span>

#include "mad/sim/sim_counters.h"
#include "mad/sim/sim_faults.h"
#include "mad/sim/sim_state.h"

namespace ibsm::sim {

// What the link layer lets through (IBA 7.2): SMPs travel on VL15 through
// ports in Init, Armed and Active; data (GMPs) leave only Active ports and
// enter Armed or Active ones.
enum class Traffic : uint8_t { smp, data };

struct Arrival {
  bool ok = false;
  DropReason reason = DropReason::no_route;  // when !ok
  uint32_t node = no_node;
  uint8_t port = 0;  // the port it entered: a switch's port 0 for its own SMA or client
  int hops = 0;      // links crossed
};

// LID routing (IBA 18.2.4) from (node, port) to the port whose LID range
// holds `dlid`. A CA sends out of its own port; a switch (and every switch on
// the way) consumes a LID of its port 0 and forwards the rest by its LFT.
// With `smps_need_active`, SMPs too need Active ports (ibsim's rule).
Arrival route_lid(const SimState& state, uint32_t node, uint8_t port, uint16_t dlid, Traffic traffic,
                  bool smps_need_active);

// Directed route, outbound (D = 0; IBA 14.2.2.2, 14.2.2.3): the requester at
// (node, port) sends with HopPointer 0; at each hop the receiving port is
// written into ReturnPath[HopPointer], the pointer moves on and the SMP leaves
// by InitialPath[HopPointer]; at hop HopCount it reaches the SMA with
// HopPointer = HopCount + 1. Updates `mad` as it goes.
Arrival route_dr_outbound(const SimState& state, const SimFaults& faults, uint32_t node, uint8_t port,
                          std::span<uint8_t> mad);

// Directed route, returning (D = 1; IBA 14.2.2.4): the responder at (node,
// port) sends with HopPointer = HopCount + 1; each hop steps the pointer back
// and sends by ReturnPath[HopPointer] until it reaches the requester's node
// with HopPointer 0. Updates `mad`.
Arrival route_dr_return(const SimState& state, const SimFaults& faults, uint32_t node, uint8_t port,
                        std::span<uint8_t> mad);

}  // namespace ibsm::sim
