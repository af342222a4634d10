// The heavy sweep: discover, assign LIDs, route, program switches, program
// ports, activate — phases with barriers (each phase's MADs are all answered
// before the next starts). It sends only what differs from what the fabric
// holds, so a resweep of an unchanged, configured fabric sends no Set at all.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "routing/engine.h"
#include "routing/port_routes.h"
#include "routing/route_check.h"
#include "sm/discovery/discovery.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/fabric/subnet_snapshot.h"
#include "sm/sweep/lid_assignment.h"
#include "sm/sweep/port_settings.h"
#include "sm/sweep/sweep_problem.h"
#include "sm/sweep/sweep_state.h"
#include "sm/sweep/vl_programming.h"

namespace ibsm {

// What a routing engine (chain) hands the sweep: per switch (by NodeIndex) its
// LFT indexed by LID (0xFF: no entry); empty for CAs.
struct SweepRoutes {
  // By NodeIndex; rows shared with the last sweep's where a repair or a
  // kept routing left them as they were (sm/fabric/lfts.h).
  SharedLfts lfts;
  std::string engine;  // the engine actually used
  // The route checker's verdict on lfts (RouteCheck::to_string); empty when
  // the route function did not check.
  std::string check;
  bool check_ok = true;
  // The checker's routed load per switch port (CheckSummary::port_routes):
  // what the status page colours the fabric by; empty when not checked.
  std::vector<routing::PortRoutes> port_routes;
  // The same verdict, structured (pairs, link load, the CDG's), for the
  // metrics; empty when the route function did not check.
  std::optional<routing::RouteCheck> route_check;
  // Routings with a channel dependency cycle the route function returned so
  // far, this one included (routing_step.h): the metrics' credit loop count.
  uint64_t credit_loops = 0;
  // The SL of a path, from the engine used (SA PathRecords); empty when it
  // assigns none (every path SL 0).
  std::function<uint8_t(Lid source, Lid destination)> path_sl;
  // The engine used, after it routed, for its multicast hooks
  // (sm/multicast: MulticastForwarding::create); null: the defaults.
  std::shared_ptr<const routing::RoutingEngine> engine_used;
  // The engine's SL2VL and VL arbitration tables (its sl2vl() and
  // vl_arbitration() hooks); nullopt: it has none (the QoS setup's apply).
  std::optional<std::vector<routing::Sl2VlTable>> sl2vl;
  std::optional<std::vector<routing::VlArbTable>> vl_arbitration;
  // The route check still running beside the sweep (make_route_function
  // with an AsideRunner): check, check_ok, port_routes and route_check are
  // filled in by settle_route_check. Until then the fabric the route
  // function was given must stay as it is.
  struct PendingCheck {
    std::function<void()> wait;                  // until the check has run
    std::function<void(SweepRoutes&)> record;    // its verdict into the routes and the log
  };
  std::shared_ptr<PendingCheck> pending_check;
};
// Waits for a pending route check and records it; nothing when none is.
void settle_route_check(SweepRoutes& routes);
using RouteFunction = std::function<Result<SweepRoutes>(const Fabric& snapshot)>;

struct SweepConfig {
  LidOptions lids;
  SubnetSettings subnet;       // sm_lid is filled in by the sweep
  uint8_t switch_life_time = 0x12;  // SwitchInfo:LifeTimeValue (OpenSM's packet_life_time)
  RouteFunction route;         // required
  // The partitions file as read; null: none (OpenSM's Default partition).
  std::shared_ptr<const PartitionConfig> partitions;
  PartitionOptions partition_options;
  // SL2VL and VL arbitration programming: the qos keys (sm/sweep/vl_programming.h).
  VlSettings vl;
  // The QoS policy file as read (used with vl.qos TRUE); null: none.
  std::shared_ptr<const QosPolicy> qos_policy;
  // A port no SM has configured since its reset holds the reset P_Key
  // table (IBA C10-123) and is not read; false: every table is read
  // (ports that keep P_Keys in non-volatile storage). pkey_trust_reset_tables.
  bool trust_reset_p_key_tables = true;
  // Runs after discovery, before anything is written: the SM's election
  // (sm/manager). false stops the sweep there, because this SM is not the
  // one to configure the subnet (another SM is master or outranks it).
  std::function<bool(const DiscoveryResult&)> after_discovery;
  // Whether a node that did not answer beyond `port` of `node` is one the
  // SM waits for (it answered in an earlier sweep and has not been silent
  // too long): then it is `missing`, and the subnet is not up without it.
  // Unset: every silent node is simply left out (`unreachable`).
  std::function<bool(Guid node, PortNum port)> expects_peer;
  // The last subnet that was up: a `missing` node is routed as it was seen
  // there (sm/sweep/missing_nodes.h). Null: a missing node has no routes.
  std::shared_ptr<const SubnetSnapshot> last_seen;
  // OpenSM's m_key_lookup: talk to each port with the M_Key it is known to
  // hold (SweepState::m_keys), not only with subnet.m_key.
  bool m_key_lookup = true;
};

struct PhaseReport {
  std::string name;
  Micros elapsed = 0;
  uint64_t mads = 0;
};

struct SweepReport {
  bool subnet_up = false;
  bool stopped_after_discovery = false;  // after_discovery said no: nothing was written
  std::vector<PhaseReport> phases;
  DiscoveryResult discovery;   // the fabric as found
  // The subnet as this sweep left it configured (null when it stopped after
  // discovery): what the SA, the light sweep and the next sweep read. The
  // configured fabric and the LFTs live there only (routes.lfts is moved in).
  std::shared_ptr<const SubnetSnapshot> subnet;
  LidAssignment lids;
  SweepRoutes routes;
  Lid sm_lid;
  uint64_t lft_blocks_sent = 0;
  uint64_t lft_blocks_read = 0;   // blocks of switches the SM had no memory of (a takeover)
  uint64_t port_info_sets = 0;
  uint64_t switch_info_sets = 0;
  uint64_t pkey_sets = 0;          // P_Key table blocks set
  uint64_t pkey_blocks_read = 0;   // blocks of ports whose table the SM had no memory of
  uint64_t sl2vl_sets = 0;         // SL2VL tables set
  uint64_t vlarb_sets = 0;         // VL arbitration blocks set
  uint64_t vl_tables_read = 0;     // SL2VL tables and VLArb blocks the SM had no memory of
  uint64_t pkey_tables_taken_reset = 0;  // tables not read: the ports were fresh from reset (C10-123)
  uint64_t ports_armed = 0;
  uint64_t ports_activated = 0;
  // By GUID and port; the rest is still configured. Partition problems (a
  // table too small for a port's keys) do not keep the subnet from coming up.
  std::vector<SweepProblem> problems;
  uint64_t total_mads() const;
};

// Runs one heavy sweep to completion. Fails only when nothing can be done
// (the local port does not answer, the LIDs do not fit, no engine routes);
// problems with single nodes or ports are in the report.
Result<SweepReport> heavy_sweep(MadDispatcher& dispatcher, const Clock& clock, SweepState& state,
                                const SweepConfig& config, LogSink& log);

// The phases after discovery, on a fabric found otherwise: an incremental
// pass (sm/sweep/incremental_sweep.h) that re-read only the region that
// changed and patched the previous snapshot. `found_phase` (its name,
// duration and MADs) comes first in the report's phases.
Result<SweepReport> configure_found_subnet(MadDispatcher& dispatcher, const Clock& clock, SweepState& state,
                                           const SweepConfig& config, DiscoveryResult found, PhaseReport found_phase,
                                           LogSink& log);

}  // namespace ibsm
