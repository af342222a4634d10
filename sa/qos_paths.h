// The QoS policy (sm/fabric/qos_policy.h) applied to PathRecords: which
// level a path between two end ports gets, and what that level does to the
// record. The rule for SLs when the routing engine assigns its own
// (SaSnapshot::path_sl): the engine's SL wins and the policy's SL is not
// used (a policy SL could map the path to a VL that breaks the engine's
// deadlock freedom); the level's MTU, rate and packet lifetime limits still
// apply. The heavy sweep warns once when a policy SL is overridden.
#pragma once

#include <cstdint>

#include "sa/snapshot.h"
#include "sm/fabric/qos_policy.h"

namespace ibsm::sa {

// The level for a path from `source` to `destination` as `request` asks
// (its source and destination are filled from the ports); nullptr: no
// policy, or nothing in it matches.
const QosLevel* path_qos_level(const SaSnapshot& s, const EndPort& source, const EndPort& destination,
                               QosRequest request);

// Lowers `mtu`, `rate` (codes) to the level's limits and sets the packet
// lifetime it gives; `sl` to the level's unless the engine assigns SLs.
void apply_qos_level(const SaSnapshot& s, const QosLevel& level, uint8_t& sl, uint8_t& mtu, uint8_t& rate,
                     uint8_t& packet_life);

}  // namespace ibsm::sa
