// The incremental resweep (issue 13): after a trap 128 or a light sweep that
// saw a switch's PortStateChange, only the region that changed is read
// again: the switches named, then the far ends of every link that went or
// came, and outward from each port that came up whatever is new there. The
// previous snapshot, patched with what was read, is the fabric a full
// discovery would have found: nodes cut off by a link that went down are
// dropped (the neighbour's port down is the proof the missing-node rule
// asks for). The phases after discovery then run as in the heavy sweep
// (configure_found_subnet): LIDs and routes are computed for the whole
// fabric, but only what differs is sent (LFT blocks, PortInfo of the ports
// that came up, their state changes).
//
// When in doubt it gives up and says why, and the caller runs a heavy
// sweep: a switch that does not answer on any path, a LID changed behind
// the SM's back, a new node that cannot be read.
#pragma once

#include <memory>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "sm/fabric/subnet_snapshot.h"
#include "sm/sweep/heavy_sweep.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

struct IncrementalInput {
  // The subnet as the last sweep left it configured.
  const SubnetSnapshot& last;
  // The switches whose ports changed (node GUIDs): trap 128 issuers,
  // switches whose PortStateChange the light sweep saw.
  std::vector<Guid> switches;
  // The routing of the last sweep (its engine's needs_reroute decides whether
  // the new fabric is routed afresh; when not, these tables are kept). Null:
  // always route.
  const SweepRoutes* last_routes = nullptr;
  // A change that needs new tables: mend last_routes where its engine can
  // (RoutingEngine::repair, routing/route_repair.h); false: route afresh.
  bool repair_routes = true;
};

// The rediscovery alone: the fabric as found, with its paths, SwitchInfos and
// PortInfos (what the configuring phases read), and how many SMPs it took.
// An error (failed_precondition) says why a heavy sweep is needed instead.
Result<DiscoveryResult> rediscover_region(MadDispatcher& dispatcher, const IncrementalInput& input,
                                          LogSink& log = null_log_sink());

// Rediscovery of the region, then the configuring phases. An error says why
// a heavy sweep must run instead (nothing was configured then).
Result<SweepReport> incremental_sweep(MadDispatcher& dispatcher, const Clock& clock, SweepState& state,
                                      const SweepConfig& config, const IncrementalInput& input, LogSink& log);

}  // namespace ibsm
