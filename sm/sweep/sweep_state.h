// What the SM remembers between sweeps (and, through the edge's cache files,
// between runs): the GUID-to-LID map and what each switch's forwarding table
// holds, so a resweep of an unchanged fabric rewrites nothing.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "mad/base/types.h"
#include "sm/fabric/m_keys.h"
#include "sm/fabric/multicast_tables.h"
#include "sm/sweep/guid2lid.h"
#include "sm/sweep/port_map.h"
#include "sm/sweep/port_settings.h"
#include "sm/sweep/remembered_lft.h"
#include "sm/sweep/vl_memory.h"

namespace ibsm {

// What we last wrote to (or read from) one switch.
struct SwitchMemory {
  Lid lid;                    // its LID when the table was written
  uint16_t linear_fdb_top = 0;
  RememberedLft lft;          // by LID, 0xFF for no entry
  // The MFT as we last wrote or read it (sm/multicast/mft_programming.h): the
  // entries that are not empty, by MLID. mft_known false: never read (a
  // takeover, or the switch is not as we left it): its blocks are read first.
  bool mft_known = false;
  MulticastTables::Entries mft;
  // SwitchInfo:MulticastFDBTop as we last read or set it (IBA 14.2.5.4; only
  // where PortInfo:CapabilityMask.IsMulticastFDBTopSupported): entries above
  // it are ignored by the switch, and were never read.
  uint16_t mft_top = 0;
};

// What we last asked one port to hold and what it held after the Set. When
// the port still holds `held` and we would ask for `asked` again, the Set
// would change nothing: the port keeps only what it can (IBA 14.2.5.6 lets an
// SMA ignore what it does not implement).
struct PortMemory {
  ManagedPortFields asked;
  ManagedPortFields held;
  // The same for the M_Key fields (not in the cache: after a restart they
  // are asked for once more).
  MKeyFields asked_key;
  MKeyFields held_key;
};

struct SweepState {
  Guid2Lid guid2lid;
  std::unordered_map<Guid, SwitchMemory> switches;  // by node GUID
  // What each port's P_Key table holds, as last read or set (the Set's
  // answer): by node GUID, then port number. A port not in here is read
  // before its table is planned.
  std::unordered_map<Guid, PortMap<std::vector<uint16_t>>> p_key_tables;
  // By node GUID, then port number (a switch's ports share one GUID).
  std::unordered_map<Guid, PortMap<PortMemory>> ports;
  // SL2VL and VLArb tables as last read or set (sm/sweep/vl_programming.h).
  VlTablesMemoryMap vl_tables;
  // The policy's SLs yield to an engine's (sa/qos_paths.h): said once.
  bool warned_policy_sl_ignored = false;
  // The M_Key each port holds as far as the SM knows (set by it, learned, or
  // from the guid2mkey file), by port GUID; ports with key 0 are not listed.
  Guid2MKey m_keys;
  uint64_t heavy_sweeps = 0;
};

}  // namespace ibsm
