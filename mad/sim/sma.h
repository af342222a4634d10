// The subnet management agent of every simulated node: answers Get and Set of
// the SMP attributes (IBA 14.2.5) from SimState, the way the spec and ibsim
// 0.10 say a switch or CA does. Attributes it does not know get the status a
// real SMA returns (method/attribute unsupported, invalid field) rather than
// silence. SMInfo and Notice are not the SMA's: they belong to an SM.
#pragma once

#include <cstdint>
#include <span>

#include "mad/sim/sim_state.h"

namespace ibsm::sim {

struct SmaRequest {
  uint32_t node = 0;
  uint8_t in_port = 0;  // the port the SMP entered; 0 for a switch's own client
  uint8_t method = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
  // The M_Key check let a Get through without the right key at protection
  // level 1: PortInfo:M_Key reads 0 (sma_m_key.h).
  bool m_key_hidden = false;
};

// Does the SMA answer this attribute itself (rather than an SM on the node)?
bool sma_handles(uint16_t attr_id);

// Processes one Get or Set (or any other method, which it refuses). `data` is
// the 64 bytes of SMP data: the request's on entry, the answer's on return
// (left as the request's when the status is an error). Returns the MAD status.
uint16_t sma_process(SimState& state, const SmaRequest& request, std::span<uint8_t> data);

// PortInfo:CapabilityMask bit 22, IsCapabilityMaskNoticeSupported (IBA
// 14.2.5.6): the port sends trap 144 when its capability mask changes.
inline constexpr uint32_t capability_mask_notice_supported = 1u << 22;

// PortInfo:CapabilityMask of (node, port) as the SMA reports it now.
uint32_t port_capability_mask(const SimState& state, uint32_t node, uint8_t port);

}  // namespace ibsm::sim
