// LID assignment, the sweep's second phase: gives every switch (port 0, one
// LID for the whole switch) and every cabled CA or router port a LID block,
// keeping what the fabric already holds wherever that is valid, and produces
// the guid2lid map to persist. An uncabled CA port gets none: the SM cannot
// reach it through its own link, and discovery leaves its GUID unknown
// anyway (OpenSM, too, only assigns the ports it discovered).
//
// For each port, in this order of preference:
//  1. the LID block the port holds now, when it is a unicast block inside the
//     configured range, aligned to 2^LMC, not reserved by the persisted map
//     for another GUID, and not held by another port (duplicates: the port
//     whose persisted entry agrees keeps it, else the lower GUID);
//  2. its block in the persisted guid2lid map, when that is valid for the
//     current LMC (an entry is widened or narrowed in place when the LMC
//     changed and the neighbouring LIDs allow it);
//  3. the lowest free aligned block, skipping LIDs reserved by the map for
//     ports that are not in the fabric now (a rebooting host gets its LID back).
// With `restore_assigned` (the map is the SM's own, from this mastership) 2
// comes before 1: a LID changed behind the SM's back is put back.
// `reassign_all` (OpenSM's -r) ignores 1 and 2 and packs everything afresh.
//
// One deliberate difference from OpenSM (osm_lid_mgr.c), which prefers the
// persisted entry over the LID a port holds: a port that holds a valid LID
// that nobody else claims keeps it. Moving a live LID breaks every connection
// and cached path record that uses it, which costs more than a stale line in
// a cache; the new map records the live LID instead.
//
// Fresh blocks are handed out in this order: the SM's own port, then the
// switches, then the CA and router ports, each group in port GUID order.
// GUID order, and not discovery order, because discovery order depends on
// which port the SM sits on and on the timing of replies (many SMPs are in
// flight at once), while the same fabric should get the same LIDs whichever
// host or transport (SimFabric or a real HCA) the SM runs on. OpenSM, too,
// walks its port-GUID table after assigning its own port first. Switches come
// before hosts so that at LMC > 0 their single LIDs fill the bottom of the
// range and the hosts' aligned blocks follow without holes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/fabric.h"
#include "sm/sweep/guid2lid.h"

namespace ibsm {

struct LidOptions {
  uint8_t lmc = 0;            // -l: each CA/router port gets 2^lmc LIDs (0-7)
  bool reassign_all = false;  // -r: ignore current LIDs and the persisted map
  // OpenSM's lmc_esp0: switches with an enhanced port 0 get 2^lmc LIDs too.
  // A base port 0 always has one LID (LMC 0), as in OpenSM.
  bool lmc_esp0 = false;
  Lid min_lid{1};  // the LIDs the SM may hand out (OpenSM hands out 1..0xBFFF)
  Lid max_lid{Lid::max_unicast};
  Guid sm_port_guid;  // the SM's own port: first in line for a fresh block (zero: none)
  // The persisted map is this SM's own assignment, made while it has been
  // master (not a cache from before a restart or another SM's time): a port
  // that holds another LID had it changed behind the SM's back, and gets
  // the SM's back, as OpenSM does. Otherwise rule 1 keeps the live LID.
  bool restore_assigned = false;
};

// Where a port's LID block came from.
enum class LidSource : uint8_t { kept, persisted, fresh };
const char* lid_source_name(LidSource s);  // "kept", "persisted", "fresh"

// Why a port did not keep the LID it held.
enum class LidDropReason : uint8_t {
  none,            // it did keep its base LID; only the LMC changed
  no_lid,          // it held LID 0
  outside_range,   // not unicast, or outside [min_lid, max_lid]
  unaligned,       // base LID not a multiple of 2^lmc
  claimed,         // the persisted map reserves the LID for `other`
  duplicate,       // `other` holds the LID too and keeps it
  reassign_all,    // -r
  moved,           // restore_assigned: changed behind the SM's back, put back
};

struct AssignedLid {
  Guid guid;
  PortRef where;  // a switch's is port 0
  bool is_switch = false;
  Lid base;
  uint8_t lmc = 0;
  LidSource source = LidSource::fresh;
  uint32_t count() const { return 1u << lmc; }
};

// A port whose LID or LMC changes: what the port programming phase must set,
// and one log line each (describe()).
struct LidChange {
  Guid guid;
  PortRef where;
  Lid old_base;
  uint8_t old_lmc = 0;
  Lid new_base;
  uint8_t new_lmc = 0;
  LidSource source = LidSource::fresh;
  LidDropReason reason = LidDropReason::none;
  Guid other;  // for claimed and duplicate
};
// "guid 0x0002c90400000101 port 1: lid 7 -> 12 (guid 0x0002c90400000001 also
// holds lid 7 and keeps it; lowest free lid)", "..: lid 0 -> 8, lmc 0 -> 2 (..)",
// "..: lid 8 lmc 0 -> 2" (base kept).
std::string describe(const LidChange& change);

struct LidAssignment {
  std::vector<AssignedLid> ports;  // sorted by GUID
  std::vector<LidChange> changes;  // sorted by GUID
  Guid2Lid guid2lid;               // to persist: every port here, plus the valid
                                   // entries of ports that are absent now
  // Problems with the persisted map, and entries dropped to make room.
  std::vector<std::string> warnings;
  Lid top;  // the highest LID in use (the switches' LinearFDBTop)
  size_t kept = 0, persisted = 0, fresh = 0;

  const AssignedLid* find(Guid guid) const;
};

// Assigns LIDs for `discovered`, whose ports carry the LIDs they hold now.
// `persisted` is the map read at startup (null: none). Fails with
// invalid_argument for bad options or duplicate port GUIDs, and with
// failed_precondition when the LIDs do not fit in the range: the message
// says how many are needed and how many the range has.
Result<LidAssignment> assign_lids(const Fabric& discovered, const LidOptions& opts, const Guid2Lid* persisted);

// Writes the assignment into `fabric` (a copy of the one it was made for):
// base LID and LMC on every port of each switch, and on each assigned CA or
// router port. Fails, changing nothing, when a port's GUID does not match.
Status apply_lids(const LidAssignment& assignment, Fabric& fabric);

}  // namespace ibsm
