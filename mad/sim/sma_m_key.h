// The SMA's M_Key check (IBA 14.2.4): every SMP a node's SMA would answer is
// checked against the M_Key of the port that guards it, before anything is
// read or written. Internal to mad/sim.
//
// The rules (IBA 14.2.4.1, table "M_Key protection levels"; OpenSM's man
// page says the same): the check passes when the port's M_Key is 0 or the
// SMP carries it. When it fails, by M_KeyProtectBits:
//   0: a Get is answered (M_Key readable); a Set or TrapRepress is refused;
//   1: a Get is answered but PortInfo:M_Key reads 0; Set refused;
//   2, 3: Get and Set refused (3 is the same as 2).
// A refused SMP gets no answer: the SMA drops it, counts it in
// M_KeyViolations, sends trap 256 and, when M_KeyLeasePeriod is not 0 and
// the lease timer is not running yet, starts it (IBA 14.2.4.2). A request
// whose check passes stops a running timer; a timer that runs out clears
// the protection bits, so the key can be read and recovered.
#pragma once

#include <cstdint>

#include "mad/base/clock.h"
#include "mad/sim/sim_state.h"

namespace ibsm::sim {

enum class MKeyVerdict : uint8_t {
  pass,         // answer as usual
  pass_hidden,  // answer, but PortInfo:M_Key reads 0 (level 1, wrong key)
  refuse,       // drop, count, trap 256
};

// The port whose M_Key guards an SMP that entered `node` by `in_port`: a
// switch has one M_Key, in port 0's PortInfo (its external ports' M_Key
// components are reserved, IBA 14.2.5.6); a CA's port guards itself.
uint8_t m_key_port(const SimState& s, uint32_t node, uint8_t in_port);

// Runs the check for one Get, Set or TrapRepress with `m_key` at `now`:
// expires the lease first, then decides; on `refuse` it has counted the
// violation and started the lease timer (the caller sends the trap).
MKeyVerdict check_m_key(SimState& s, uint32_t node, uint8_t in_port, uint8_t method, uint64_t m_key, Micros now);

}  // namespace ibsm::sim
