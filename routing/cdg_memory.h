// The channel dependency graph of the last fully checked tables, kept so
// that a route repair (RoutingEngine::repair) is checked for credit loops
// without building the graph again: building it walks every LID at every
// switch (most of a second at 42k LIDs: bench/reroute.sh), while a repair
// changes a few thousand entries.
//
// Only the plain mode is kept: every packet on VL 0 (no engine SLs), which is
// what the one repairing engine, min-hop, installs. Channels are directed
// switch-to-switch cables, numbered per node GUID and port, so the memory
// outlives node indices that shift when a switch goes. Injection channels
// are left out: nothing depends into them, so they are never on a cycle.
//
// After a repair the memory holds every dependency of the new tables: those
// the changed entries make are added, and those they may have made alone
// (out of each changed entry's old channel, and into it from neighbours
// sending the LID there) are looked up in the tables and dropped when no
// route makes them any more. It may still hold a few stale ones (a switch
// LID whose carriers changed upstream): a superset, never less. A superset
// without a cycle proves the tables have none.
//
// A topological order of the channels (rank) is kept with it: an added
// dependency from a lower rank to a higher one cannot close a cycle, so only
// when one goes against the order is the whole memory ordered again (Kahn's
// algorithm over the kept graph: tens of milliseconds at 42k LIDs, against
// the walk of every table). A cycle that ordering meets is checked against
// the tables: each of its channels' dependencies are taken again, the stale
// ones drop out, and the memory is ordered again, until it is acyclic or the
// cycle is all real (min-hop's repaired tables on a fat tree with a cable
// pulled have one: paths that turn down and up again). After a few rounds
// the caller builds the graph afresh (check_channel_dependencies), which
// renews the memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "routing/cdg.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm::routing {

struct CdgMemory {
  struct NodePorts {
    uint32_t base;  // the channel id of its port 0; port p is base + p
    uint8_t ports;
  };
  std::unordered_map<uint64_t, NodePorts> nodes;  // by node GUID
  // By channel id: the id of port 0 of the switch its cable leads to, or
  // kNoIndex when it is no usable switch-to-switch cable.
  std::vector<uint32_t> target;
  // By channel id: the out-ports of that switch some packet arriving on the
  // channel leaves by (a superset after repairs).
  std::vector<PortMask> deps;
  // By channel id: its place in a topological order of `deps`, when ordered.
  std::vector<uint32_t> rank;
  bool ordered = false;

  // Orders the channels (rank) by Kahn's algorithm. When `deps` has a cycle
  // it returns one (channel ids, each depending on the next and the last on
  // the first) and `ordered` is false.
  std::vector<uint32_t> order();
};

struct CdgUpdate {
  uint64_t changed_entries = 0;   // table entries that differ from the given tables
  uint64_t changed_channels = 0;  // channels whose cable now leads elsewhere or nowhere
  uint64_t added = 0;             // dependencies new to the memory
  uint64_t dropped = 0;           // dependencies no route makes any more, dropped
  bool reordered = false;         // one went against the order, so the memory was ordered again
  bool acyclic = true;
  // When not acyclic: a cycle of the repaired tables, every dependency of it
  // checked against them (channels by `now`'s node indices, on VL 0); empty
  // when the stale dependencies could not be told apart in a few rounds: the
  // caller builds the graph afresh.
  std::vector<CdgChannel> cycle;
};

// A cycle from what Kahn's algorithm left: every node left has a
// predecessor left (pred), so walking back from `start` must come round to
// a node seen before; the nodes from there on, in dependency order.
std::vector<uint32_t> walk_back(const std::vector<uint32_t>& pred, uint32_t start);

// The report after an update that settled (acyclic, or with a real cycle):
// the memory's channels and dependencies (a superset of the tables'), on
// VL 0, the cycle described over `now`; it keeps `memory` for the next.
CdgReport memory_report(std::shared_ptr<CdgMemory> memory, const Fabric& now, const CdgUpdate& update);

// Brings `memory` from `given` (the tables the repair started from, by
// `now`'s node indices) to `repaired` (the tables after it, the same
// indices): adds the dependencies through changed entries and through
// channels whose cable changed, drops those no route makes any more, and
// settles the order (CdgUpdate says how). nullopt, with `memory` untouched,
// when a node of `now` is not in it or has more ports than it knew: the
// caller builds the graph afresh.
std::optional<CdgUpdate> update_cdg_memory(CdgMemory& memory, const Fabric& now, const SharedLfts& given,
                                           const SharedLfts& repaired);

}  // namespace ibsm::routing
