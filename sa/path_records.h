// The SA's PathRecord (IBA 15.2.5.16) and MultiPathRecord (IBA 15.2.5.20)
// answers: paths are not stored anywhere, they are traced through the
// snapshot's LFTs per query (IBA 15.4: the SA answers with the properties of
// the route the SM programmed).
//
// PathRecord, SubnAdmGet / SubnAdmGetTable:
//  - Source: the SGID or SLID of the template (both given: the same port),
//    else every end port in port GUID order; destination: the DGID or DLID,
//    else every end port in port GUID order: source major, OpenSM's "world"
//    answer (osmtest -f v relies on its order). Such a GetTable is bounded:
//    more than 2^20 port pairs is ERR_NO_RESOURCES. A GID must carry
//    the subnet prefix or the link-local one and name a known port GUID; a
//    LID must be owned by a port. SLID/DLID narrow the port's 2^LMC LIDs to
//    that one LID; the QoS level's path bits narrow them too (qos_paths.h).
//  - Per port pair the (SLID, DLID) combinations come in OpenSM's order:
//    first the "redundant" pairs (the i-th usable LID of each port: base+i,
//    base+i without path bits), Preference 0, then the others, source
//    major, Preference 2. NumbPath (in the mask) caps how many
//    of them a pair gives; without it GetTable gives every one and Get one
//    (the IBA 1.2 erratum OpenSM follows: a Get means NumbPath 1).
//  - A path is the route from the source port to the DLID through the LFTs
//    (trace_path); it exists when the tables deliver the DLID to the
//    destination port over ACTIVE links. MTU = the smallest link MTU, Rate =
//    the slowest link (PortLink in snapshot.h), PacketLifeTime = the subnet's
//    (SaSnapshot::path_packet_life_time; 0 from a port to itself, IBA 1.2
//    table 205), SL = SaSnapshot::path_sl, P_Key as below. Reversible =
//    the route back from the destination to the SLID
//    exists too; with Reversible=1 in the mask only such paths answer.
//    NumbPath answers 0 (OpenSM's convention). Selectors are answered as
//    "exactly" (2).
//  - Selectors with their value in the mask (IBA 15.2.5.16 MTUSelector ...):
//    MTU and Rate as OpenSM does: greater-than filters; less-than lowers the
//    path's value to the largest one below the limit (a slower or smaller
//    path is always usable); exactly needs the path to reach the value and
//    answers it; largest keeps the path's own. PacketLifeTime is not lowered
//    (a path does not get faster by saying so; OpenSM lowers it):
//    greater-than, less-than and exactly filter, smallest keeps the path's.
//    An MTU or Rate value with its selector that names no MTU/rate:
//    ERR_REQ_INVALID. A selector without its value is ignored; a value
//    without its selector must equal the path's.
//  - Partitions (IBA 10.9, as OpenSM answers): a P_Key in the mask must be
//    held by the requester (else no path at all) and shared by the pair with
//    at least one full member, and is answered as asked; without it the path
//    carries the lowest partition the pair shares with a full member, as the
//    source holds it (partition_access.h: shared_pkey), and a pair sharing
//    none has no path. The QoS level's P_Keys narrow both (qos_paths.h). A
//    requester (by its LID) is told only of paths between ports it shares a
//    partition with. RawTraffic=1 answers P_Key 0 (raw packets carry none)
//    whatever the partitions. ServiceID, FlowLabel, HopLimit, TClass and
//    QoSClass are the requester's choice: answered as asked when in the
//    mask, else 0 (HopLimit 0: a path inside the subnet needs no GRH; Linux
//    adds one when HopLimit > 0). The remaining masked components (SL,
//    Preference, reserved) must equal the computed record
//    (wire::masked_fields_equal) or the path is dropped.
//  - Status: as run_query (query.h): Get answers exactly one record, else
//    ERR_NO_RECORDS / ERR_TOO_MANY_RECORDS; GetTable answers every path,
//    none included. A GID that is foreign or unknown: Get ERR_NO_RECORDS,
//    GetTable ERR_REQ_INVALID_GID (IBA 15.2.1.1 table 187). Other methods:
//    SaQueryOutcome::unsupported_method.
//
// MultiPathRecord, SubnAdmGetMulti only: SaQuery::record is the whole
// request (the fixed part, then SGIDCount + DGIDCount GIDs; the agent
// reassembles RMPP, so it may exceed one MAD). Both counts must be in the
// mask and non-zero, and the GIDs must be there, else ERR_REQ_INVALID; a
// foreign or unknown GID: ERR_REQ_INVALID_GID (OpenSM's answers). Every
// (SGID, DGID) pair, sources major, gives its paths as a PathRecord GetTable
// would (same order, selectors and rules, the fixed fields mapped onto the
// PathRecord ones), until NumbPath paths in all (127 without NumbPath,
// OpenSM's cap). IndependenceSelector is not acted on. The answer is
// PathRecords (o15-0.2.7): the agent sends them under the PathRecord
// attribute ID.
#pragma once

#include <cstdint>
#include <optional>

#include "mad/base/types.h"
#include "sa/query.h"
#include "sa/snapshot.h"

namespace ibsm::sa {

// What following the LFTs from a port to one of another port's LIDs found.
struct TracedPath {
  uint8_t hops = 0;  // cables crossed: 0 from a port to itself
  uint8_t mtu = 0;   // MTU code: the smallest along the path
  uint8_t rate = 0;  // rate code: the slowest along the path
};

// The route from end port `source` to `dlid`, a LID of end port
// `destination`: nullopt when the tables do not deliver it there (an LFT
// without the entry, a port without an ACTIVE link, a CA that is not the
// destination, more than 64 hops: OpenSM's bound for a loop). A switch's own
// MTUCap counts when the switch is an end; from a port to itself the path is
// the port's own MTU and rate. No allocation, no scan: LFT bytes and
// PortLinks only.
std::optional<TracedPath> trace_path(const SaSnapshot& snapshot, const EndPort& source, const EndPort& destination,
                                     Lid dlid);

// True for the attributes run_path_query answers (PathRecord, MultiPathRecord).
bool is_path_attribute(uint16_t attribute);

SaQueryResult run_path_query(const SaSnapshot& snapshot, const SaQuery& query);

}  // namespace ibsm::sa
