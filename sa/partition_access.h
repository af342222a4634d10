// Who is asking, and which ports may see each other: the requester checks
// the SA's registries (service records, event subscriptions) share.
//
// A requester is named by the LID its request came from (any LID of its
// port's 2^LMC range); the SA knows it by the end port owning that LID and
// by that port's GID (subnet prefix + port GUID, IBA 4.1.1).
//
// Partition rules (IBA 10.9.2, 10.9.3): two ports can talk when they share
// a P_Key (the low 15 bits, the partition number) and at least one of the
// two is a full member (bit 15). A P_Key whose partition number is 0 is the
// invalid P_Key and never matches.
#pragma once

#include <cstdint>
#include <optional>

#include "mad/base/types.h"
#include "mad/wire/field.h"
#include "mad/wire/p_key_table.h"
#include "sa/snapshot.h"

namespace ibsm::sa {

// The end port a request from `lid` came from, or nullptr.
inline const EndPort* requester_port(const SaSnapshot& s, Lid lid) { return s.by_lid(lid); }

// The port's GID: the subnet prefix and its port GUID.
inline wire::Gid port_gid(const SaSnapshot& s, const EndPort& e) {
  return wire::Gid::from_parts(s.subnet_prefix, e.guid.value);
}

// How a GID names a port of this subnet: its interface ID is the port's
// GUID, and its prefix is
//  - subnet_or_link_local: the subnet's, or link-local (fe80::/10, valid on
//    every subnet, IBA 4.1.1);
//  - any: whatever it is, as OpenSM finds a ServiceRecord's port (osmtest 3.3
//    sends a zero prefix, or the link-local one in host byte order, 0x80fe).
enum class GidPrefix { subnet_or_link_local, any };

// The end port `gid` names, or nullptr.
const EndPort* port_by_gid(const SaSnapshot& s, const wire::Gid& gid,
                           GidPrefix prefix = GidPrefix::subnet_or_link_local);

// True when `e`'s P_Key table holds the partition of `pkey` (either membership).
bool port_has_pkey(const SaSnapshot& s, const EndPort& e, uint16_t pkey);

// True when `a` and `b` share a partition with at least one full member.
bool ports_share_pkey(const SaSnapshot& s, const EndPort& a, const EndPort& b);

// True when `a` and `b` both hold the partition of `pkey` and at least one
// of them is a full member of it.
bool ports_share_this_pkey(const SaSnapshot& s, const EndPort& a, const EndPort& b, uint16_t pkey);

// The P_Key a path between `a` and `b` carries when none is asked for:
// OpenSM's choice (osm_physp_find_common_pkey), the lowest partition number
// both hold with at least one full member, as `a` holds it (its membership
// bit). nullopt: they share none, and no path is given.
std::optional<uint16_t> shared_pkey(const SaSnapshot& s, const EndPort& a, const EndPort& b);

// The same choice among partition numbers `lo`..`hi` only (a QoS level's
// P_Keys, sa/qos_paths.h).
std::optional<uint16_t> shared_pkey_in(const SaSnapshot& s, const EndPort& a, const EndPort& b, uint16_t lo,
                                       uint16_t hi);

}  // namespace ibsm::sa
