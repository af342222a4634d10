// Internal to mad/sim: a MAD on its way through the simulated fabric, shared
// by the files that implement SimFabric.
#pragma once

#include <cstdint>

#include "mad/sim/sim_fabric.h"
#include "mad/wire/mad_header.h"

namespace ibsm {

// A MAD on its way through the fabric, with what its answer needs.
struct SimFabric::Travel {
  wire::MadBuffer mad{};
  SimPort* sender = nullptr;            // the client that sent it; none for a trap
  const MadPacket* original = nullptr;  // as sent, to hand back when it times out
  uint8_t mgmt_class = 0;
  uint8_t method = 0;
  uint16_t attr_id = 0;
  bool directed = false;
  bool local = false;    // LID-routed to the permissive LID: the sender's own SMA
  bool request = false;  // the sender waits for an answer
  uint16_t slid = 0;     // LID-routed: the source port's LID (where an answer goes)
  uint32_t src_qp = 0;
  uint32_t qkey = 0;
  uint8_t sl = 0;
  uint16_t pkey_index = 0;
  Micros latency = 0;
};

}  // namespace ibsm
