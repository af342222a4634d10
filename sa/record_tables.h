// The SA's record tables (IBA 15.2.5), enumerated from a snapshot: every
// record a GetTable with an empty component mask returns, in the order
// OpenSM returns them (its tables are keyed maps, so the order is by GUID):
//
//  NodeRecord           nodes by node GUID; a switch once (port 0's LID and
//                       GUID), a CA/router once per port the SM read, with
//                       that port's LID, GUID and LocalPortNum (IBA 15.2.5.2;
//                       OpenSM osm_sa_node_record.c does the same).
//  PortInfoRecord       nodes by node GUID, ports in order: a switch's ports
//                       0..N, a CA's ports it read; EndportLID is the LID of
//                       the port (a switch's: port 0's).
//  LinkRecord           nodes by node GUID, ports 1..N with a cable: one
//                       record per direction of each cable, from this port
//                       to its peer; LIDs of switches are port 0's.
//  SwitchInfoRecord     switches by node GUID.
//  LinearForwardingTableRecord  switches by node GUID, blocks 0..LinearFDBTop/64.
//  MulticastForwardingTableRecord  none yet (no multicast groups exist).
//  SMInfoRecord         the SM itself (the snapshot knows no other SM).
//  GUIDInfoRecord       LID-owning ports by port GUID, blocks of GUIDCap;
//                       GUID 0 is the port GUID (no alias GUIDs are assigned).
//  P_KeyTableRecord     LID-owning ports by port GUID; a switch's ports 0..N,
//                       blocks of 32 of each table (OpenSM osm_sa_pkey_record.c).
//  SLtoVLMappingTableRecord  LID-owning ports by port GUID; a CA port once
//                       (InputPortNum 0, OutputPortNum the port), a switch
//                       for every output port 0..N and input port 0..N
//                       (OpenSM osm_sa_slvl_record.c loops output, then input).
//  VLArbitrationTableRecord  LID-owning ports by port GUID; a CA port, a
//                       switch's ports 0..N; blocks 1-2 (low priority) and
//                       3-4 (high) as VLArbLowCap/HighCap call for (IBA 14.2.5.9).
//
// A RecordScope narrows the walk to one node or one port, so a query with a
// LID or GUID key visits only its records.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "mad/wire/sa_records.h"
#include "sa/snapshot.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm::sa {

struct RecordScope {
  std::optional<NodeIndex> node;  // only records about this node
  std::optional<uint8_t> port;    // ... and of a CA, only this port (ignored for switches)
};

template <typename R>
using RecordVisitor = std::function<void(const R&)>;

void visit_node_records(const SaSnapshot& s, const RecordScope& scope, const RecordVisitor<wire::NodeRecord>& fn);
void visit_port_info_records(const SaSnapshot& s, const RecordScope& scope,
                             const RecordVisitor<wire::PortInfoRecord>& fn);
void visit_link_records(const SaSnapshot& s, const RecordScope& scope, const RecordVisitor<wire::LinkRecord>& fn);
void visit_switch_info_records(const SaSnapshot& s, const RecordScope& scope,
                               const RecordVisitor<wire::SwitchInfoRecord>& fn);
void visit_lft_records(const SaSnapshot& s, const RecordScope& scope,
                       const RecordVisitor<wire::LinearForwardingTableRecord>& fn);
// The MFT blocks the switches were programmed with (`tables`, over the
// snapshot's NodeIndex; null: none yet): for every switch with an entry,
// every block from the first MLID up to its highest entry's, at every
// position the switch has (NumPorts / 16 + 1), as a switch holds them.
void visit_mft_records(const SaSnapshot& s, const MulticastTables* tables, const RecordScope& scope,
                       const RecordVisitor<wire::MulticastForwardingTableRecord>& fn);
void visit_sm_info_records(const SaSnapshot& s, const RecordScope& scope, const RecordVisitor<wire::SmInfoRecord>& fn);
void visit_guid_info_records(const SaSnapshot& s, const RecordScope& scope,
                             const RecordVisitor<wire::GuidInfoRecord>& fn);
void visit_p_key_table_records(const SaSnapshot& s, const RecordScope& scope,
                               const RecordVisitor<wire::PKeyTableRecord>& fn);
void visit_sl_to_vl_table_records(const SaSnapshot& s, const RecordScope& scope,
                                  const RecordVisitor<wire::SlToVlTableRecord>& fn);
void visit_vl_arbitration_table_records(const SaSnapshot& s, const RecordScope& scope,
                                        const RecordVisitor<wire::VlArbitrationTableRecord>& fn);

// A whole table, for tests and tools.
template <typename R, typename Visit>
std::vector<R> collect_records(const SaSnapshot& s, Visit visit, const RecordScope& scope = {}) {
  std::vector<R> out;
  visit(s, scope, [&](const R& r) { out.push_back(r); });
  return out;
}

}  // namespace ibsm::sa
