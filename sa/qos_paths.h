// The QoS policy (sm/fabric/qos_policy.h) applied to PathRecords: which
// level a path between two end ports gets, and what that level does to the
// record. The rule for SLs when the routing engine assigns its own
// (SaSnapshot::path_sl): the engine's SL wins and the policy's SL is not
// used (a policy SL could map the path to a VL that breaks the engine's
// deadlock freedom); the level's MTU, rate and packet lifetime limits still
// apply. The heavy sweep warns once when a policy SL is overridden.
//
// A level's P_Keys, as OpenSM 3.3 (pr_rcv_get_path_parms, the same in
// MultiPathRecords): a request that asks for a P_Key gets paths only when
// the level lists its partition (and the pair shares it, as without a
// level); one that asks for none gets the first partition, in the level's
// order, that the pair shares with a full member, and no path when there is
// none. Raw traffic carries no P_Key and ignores them.
//
// A level's path bits: a path uses only those of a port's 2^LMC LIDs whose
// offset from the base LID is listed, at both ends. OpenSM departs here: it
// parses path-bits and applies them nowhere (its QoS_architecture notes
// "Path Bits are not implemented"); ibsm does what the QoS annex's level
// means, so a policy can keep a class of traffic on its own LMC routes. The
// source's LIDs too: a PathRecord's SLID is the DLID of the way back.
#pragma once

#include <cstdint>
#include <optional>

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

// Whether a path of `level` may carry `pkey` (a level without P_Keys: any).
bool qos_level_allows_pkey(const QosLevel& level, uint16_t pkey);

// The P_Key a path of `level` between `source` and `destination` carries
// when the request asks for none: the first of the level's partitions they
// share, else (a level without P_Keys) partition_access.h's shared_pkey.
// nullopt: no path.
std::optional<uint16_t> qos_level_pkey(const SaSnapshot& s, const QosLevel& level, const EndPort& source,
                                       const EndPort& destination);

// Whether a path of `level` may use `lid`, one of `port`'s LIDs, by its
// path bits (a level without path bits: any).
bool qos_level_allows_lid(const QosLevel& level, const EndPort& port, Lid lid);

}  // namespace ibsm::sa
