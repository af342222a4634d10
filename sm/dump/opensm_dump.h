// Writers for the files OpenSM dumps when asked to log its routing (`opensm
// -D 0x43`, or the dump options): the same text, line for line, for the same
// fabric and tables, so the tools that judge OpenSM's routing judge ibsm's:
//
//   ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs
//
// and OpenSM's own `file` routing engine, which loads opensm-lfts.dump.
//
// Inputs are the fabric model after LID assignment (LIDs, LMC, port states,
// widths and speeds as programmed) and the unicast forwarding tables, one per
// node indexed by NodeIndex value (empty for CAs and routers), each indexed by
// LID with 0xFF where there is no route. A table shorter than the subnet's top
// LID has no route past its end; `lfts` may be shorter than the node table.
//
// Like OpenSM, every writer lists nodes in the order of OpenSM's GUID tables
// (see OpenSmView), and a LID belongs to a switch's port 0 or to a cabled CA or
// router port. The core opens no files: the caller picks the file and its name.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "mad/base/types.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm {

struct SubnetLstOptions {
  // The master SM's LID. OpenSM marks a node "SW-SM" or "CA-SM" when the LID
  // it shows (a switch's port 0 LID, a CA's port LID) is the master SM's LID.
  // Zero: no mark.
  Lid sm_lid;
};

// opensm-subnet.lst: one line per cabled port of every node (so each link
// twice), "{ <this port> } { <peer port> } PHY=4x LOG=ACT SPD=2.5", with the
// node type, port count, system/node/port GUIDs, vendor and device ids,
// revision, description, LID and port number of each end, then the local
// port's active width, state and speed. Two of OpenSM's quirks are kept
// because ibdmchk expects them: the peer's VenID has 8 digits, and its DevID is
// the device id shifted left 16 bits ("DevID:B9240000"; ibdmchk keeps the
// first 4 digits of an 8-digit DevID). Widths other than 1x/4x/8x/12x print
// "??"; an extended speed prints "14" (FDR) or "25" (EDR), faster ones "??",
// as OpenSM 3.3 does.
void write_opensm_subnet_lst(const Fabric& fabric, std::ostream& out, const SubnetLstOptions& options = {});

// opensm.fdbs: for every switch, "dump_ucast_routes: Switch 0x<guid>", a
// column header, and for every LID from 1 to the subnet's top LID either
// "UNREACHABLE" (no port has the LID, or the table has no route), the port and
// "HOPS UNKNOWN" (the port leads nowhere toward it), or the port, the hop count
// through it and "yes" when that is a shortest path. Hops follow OpenSM: a CA
// LID counts one link past the switch the CA hangs on, and a CA on this very
// switch counts 1 whatever the port. Where a path is not shortest OpenSM names
// the port its own routing would pick; ibsm names the lowest-numbered port on
// a shortest path (ibdmchk reads only the LID and port columns).
void write_opensm_fdbs(const Fabric& fabric, LftSet lfts, std::ostream& out);

// One multicast group's entry in a switch's multicast forwarding table.
struct MulticastDumpEntry {
  Lid mlid;                    // 0xC000..0xFFFE
  std::vector<uint8_t> ports;  // the ports the group's packets leave through
};

// opensm.mcfdbs: for every switch with at least one group that leaves through
// some port, a blank line, "Switch 0x<guid>", "LID    : Out Port(s)" and one
// line per MLID in increasing order, "0xC000 : 0x001  0x003 ". `mfts` is
// indexed by NodeIndex value like the unicast tables; a switch without groups
// writes nothing, so a subnet without multicast gives an empty file, as
// OpenSM's does.
void write_opensm_mcfdbs(const Fabric& fabric, const std::vector<std::vector<MulticastDumpEntry>>& mfts,
                         std::ostream& out);
// The same from the SM's multicast forwarding state (sm/multicast).
void write_opensm_mcfdbs(const Fabric& fabric, const MulticastTables& tables, std::ostream& out);
// The same with no multicast groups at all (an empty file).
void write_opensm_mcfdbs(const Fabric& fabric, std::ostream& out);

// opensm-lfts.dump: for every switch, "Unicast lids [0-<top>] of switch Lid
// <lid> guid 0x<guid> ('<description>'):", one line per LID from 0 to the top
// LID whose entry is a port of the switch ("0x0004 003 # Channel Adapter
// portguid 0x...: 'desc'", or "# unknown node and type" for a LID nobody
// has), then "<top> lids dumped" (OpenSM prints the top LID, not the count).
// parse_lft_dump (lft_dump.h) reads it back.
void write_opensm_lfts_dump(const Fabric& fabric, LftSet lfts, std::ostream& out);

}  // namespace ibsm
