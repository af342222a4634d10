// The SubnetManager: the whole SM as the core knows it (DESIGN.md layer 7).
// It owns the MAD dispatcher on the SM's port, the SM agent (SMInfo, traps),
// the SA agent and the standby's mirror of the master's SA, and runs the SM
// state machine of IBA 14.4.1 (NOT ACTIVE, DISCOVERING, STANDBY, MASTER):
// election after discovery, the standby's polling of the master, takeover,
// handover by HANDOVER and ACKNOWLEDGE, the master's light, heavy and
// trap-driven sweeps, and publishing each configured subnet to the SA.
//
// Driven from outside: poll(now) does what is due, next_deadline() says when
// it next has something to do. No threads, files or wall clock: the daemon
// (tools/cmd_run.cpp) calls it over UmadTransport and a steady clock; tests
// and `ibsm run --sim` call it over SimFabric in virtual time, several SMs
// on one fabric.
//
// It composes two units that hold the decisions: SmRole (sm_role.h), the
// state machine, and SweepScheduler (sweep_scheduler.h), which sweep is due
// when; the manager carries out what they decide (MADs, sweeps, the agents).
//
// A heavy sweep runs to completion inside poll() (its phases wait for their
// answers on the dispatcher), as OpenSM's sweep blocks its state manager.
// What arrives meanwhile is still answered: the dispatcher hands SMInfo and
// SA requests to their agents from within the sweep's waits. Control packets
// that arrive during a sweep change the state at once; the sweep's own
// election reads the state when discovery is done.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/transport.h"
#include "routing/registry.h"
#include "sa/agent.h"
#include "sa/mirror.h"
#include "sm/config/sm_config.h"
#include "sm/manager/election.h"
#include "sm/manager/flap_quarantine.h"
#include "sm/manager/incremental_plan.h"
#include "sm/manager/sm_role.h"
#include "sm/sweep/sweep_record.h"
#include "sm/manager/sweep_scheduler.h"
#include "sm/manager/sweep_stats.h"
#include "sm/manager/trap_filter.h"
#include "mad/base/histogram.h"
#include "sm/multicast/multicast_service.h"
#include "sm/perfmgr/perf_manager.h"
#include "sm/state/sm_agent.h"
#include "mad/base/aside_runner.h"
#include "sm/sweep/heavy_sweep.h"
#include "sm/sweep/light_sweep.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

// The role's counters (polls, takeovers, handovers, state changes; sm_role.h)
// and the sweeps'.
struct ManagerCounters : SmRoleCounters {
  uint64_t heavy_sweeps = 0;        // sweeps that configured the subnet
  uint64_t incremental_sweeps = 0;  // ... after reading only the region that changed (not in heavy_sweeps)
  uint64_t discovery_sweeps = 0;    // sweeps that stopped after discovery (not master)
  uint64_t light_sweeps = 0;
  // Traps that asked for a heavy sweep while one was already due: merged
  // into it (a storm of N traps before a poll is one sweep).
  uint64_t sweep_requests_coalesced = 0;
};

// What the edge learns after each sweep that configured the subnet: it saves
// the cache and the dump files, prints a summary.
// The most recent sweep of any kind, for the operator's status: what ran,
// when (the manager's clock), for how long and with how many MADs.

using SweepListener = std::function<void(const SweepReport& report, Micros elapsed)>;
// What the edge learns first after such a sweep, once it has recorded what
// the switches and ports hold (SweepState, which the cache keeps): before
// the SA's snapshot and the multicast trees are made, which change nothing
// of it, so the cache save can run beside them (at 49k LIDs they are a
// noticeable part of the bring-up's end: bench/scale.sh).
using SweepStateListener = std::function<void(const SweepState& state)>;
using StateListener = std::function<void(SmState from, SmState to)>;
// What the edge learns after joins and leaves were programmed (between
// sweeps): the MFTs the switches now hold, over `subnet`'s NodeIndex.
using MulticastListener = std::function<void(const MulticastTables& tables, const SubnetSnapshot& subnet)>;

class SubnetManager {
 public:
  // `state` is what the edge loaded from its cache (guid2lid, switch tables).
  // The routing chain is checked at once: create() fails for a bad one.
  static Result<std::unique_ptr<SubnetManager>> create(Transport& port, const Clock& clock, const SmConfig& config,
                                                       routing::EngineSettings engines, SweepState state,
                                                       LogSink& log);
  ~SubnetManager();
  SubnetManager(const SubnetManager&) = delete;
  SubnetManager& operator=(const SubnetManager&) = delete;

  // Does whatever is due at `now`: received MADs, the SA's timers, and by
  // state: DISCOVERING sweeps; MASTER light-sweeps every sweep_interval and
  // heavy-sweeps on a change, a trap or request; STANDBY polls the master
  // and mirrors its SA; NOT ACTIVE waits to be told.
  void poll(Micros now);
  // When poll() next has work (a timer); the edge may sleep until then or
  // until a MAD arrives.
  Micros next_deadline() const;

  // SIGHUP: a heavy sweep as soon as this SM is master, and the hot-reloadable
  // settings of `config` (sm_priority among them) from now on.
  void request_heavy_sweep() { scheduler_.want_heavy(); }
  void reconfigure(const SmConfig& config);

  // Operator requests (the daemon's control socket, `ibsm ctl`). Each says
  // at once whether it is taken; the sweep it asks for runs at the next
  // poll(), never inside the caller.
  // A light sweep now (MASTER only).
  Status request_light_sweep();
  // Recompute and reprogram the routes. Every heavy sweep routes afresh from
  // the fabric it found and programs only the LFT blocks that differ, so
  // this is a heavy sweep: routing the last snapshot without rediscovery
  // would need the sweep's phases split, and would route a fabric that may
  // have changed since (MASTER only).
  Status request_reroute();
  // IBA 14.4.1: the master hands the mastership to the best STANDBY it knows
  // (highest priority, then lowest GUID), by HANDOVER and ACKNOWLEDGE. From
  // then on this SM advertises priority 0 (until it is master again or the
  // config is reloaded), or the new master would hand it straight back at
  // its next sweep, as the election says; a standby that would not outrank
  // it even so is refused. The port GUID asked.
  Result<Guid> request_handover();
  // NOT ACTIVE, as an SMInfo DISABLE does (IBA 14.4.1: a master does not
  // accept DISABLE; hand over first). enable() is the way back, as an SMInfo
  // STANDBY does: DISCOVERING, where the election finds the master again.
  Status disable();
  Status enable();
  // Storms (manager_storm.cpp): repeated traps counted and past a limit
  // ignored (trap_filter.h); links that flap too often held down
  // (flap_quarantine.h). The operator's release of a quarantined port
  // (MASTER only): PortPhysicalState Polling, then a heavy sweep.
  Status release_quarantine(Guid node, PortNum port);
  const TrapFilter& trap_filter() const { return traps_; }
  const FlapQuarantine& quarantine() const { return quarantine_; }
  // Whether this SM yielded the mastership by request_handover().
  bool yielded() const { return role_.yielded(); }
  const SweepRecord& last_sweep_record() const { return history_.empty() ? kNoSweep : history_.back(); }
  // The last kSweepHistory sweeps of every kind, oldest first (status page).
  static constexpr size_t kSweepHistory = 16;
  const std::deque<SweepRecord>& sweep_history() const { return history_; }
  // This SM's port LID as the subnet knows it: the one it gave itself as
  // master, else the one its latest discovery read (0: none yet).
  Lid own_lid() const;
  const SmConfig& config() const { return config_; }
  // The partitions file as read (null: none, OpenSM's Default partition),
  // from the next heavy sweep on. The edge reads the file, at start and at
  // SIGHUP; a bad one is not handed over, so the previous stay.
  void set_partitions(std::shared_ptr<const PartitionConfig> partitions) { partitions_ = std::move(partitions); }
  // The QoS policy file as read (null: none), applied with qos TRUE from the
  // next heavy sweep on; as the partitions, read by the edge.
  void set_qos_policy(std::shared_ptr<const QosPolicy> policy) { qos_policy_ = std::move(policy); }
  // Where a fresh routing's check runs (mad/base/aside_runner.h): beside
  // the programming that follows, on the runner's thread; the engines
  // search their next paths there too. Without one (the default) both run
  // in place, the check before anything is programmed.
  void set_aside_runner(AsideRunner aside);

  // The SM state (IBA 14.4.1); to_wire() gives SMInfo:SMState.
  SmState state() const { return role_.state(); }
  bool is_master() const { return role_.is_master(); }
  // The master this SM follows while STANDBY (or hands over to).
  const std::optional<RemoteSm>& master() const { return role_.master(); }
  const std::vector<RemoteSm>& other_sms() const { return others_; }
  // The last sweep that configured the subnet (MASTER), if any.
  const SweepReport* last_sweep() const { return last_ ? &*last_ : nullptr; }
  // The subnet as the last sweep that configured it left it, and the one
  // before (null until there is one): what changed between two sweeps.
  const std::shared_ptr<const SubnetSnapshot>& subnet() const { return subnet_; }
  const std::shared_ptr<const SubnetSnapshot>& previous_subnet() const { return previous_subnet_; }
  // Whether the last heavy sweep brought the subnet up.
  bool subnet_up() const { return up_; }
  const SweepState& sweep_state() const { return sweep_state_; }
  ManagerCounters counters() const;
  // The durations and MADs of the sweeps of one kind; when the last sweep of
  // any kind ended (nullopt: none yet).
  const SweepKindStats& sweep_stats(SweepKind kind) const { return sweep_stats_[static_cast<size_t>(kind)]; }
  std::optional<Micros> last_sweep_end() const { return last_sweep_end_; }
  // The SA's answers: seconds from a request's hand-over to the SA (from the
  // dispatcher's receive) to its answer's first MAD, in this SM's clock.
  const metrics::Histogram& sa_latency() const { return sa_latency_; }
  MadDispatcher& dispatcher() { return dispatcher_; }
  const MadDispatcher& dispatcher() const { return dispatcher_; }
  const SmAgent& sm_agent() const { return agent_; }
  // The performance manager (perfmgr): its PMA sweeps run while this SM is
  // master, over subnet(); its table is what the metrics read.
  const PerfManager& perf() const { return perf_; }
  sa::SaAgent& sa() { return sa_; }
  const sa::SaAgent& sa() const { return sa_; }
  const sa::SaMirror& mirror() const { return mirror_; }
  // The advertised SMInfo (priority elevated when master and configured so).
  wire::SmInfo sm_info() const { return agent_.sm_info(true); }

  // Multicast (manager_multicast.cpp): where the groups come from (the SA's
  // multicast groups, as ports of the snapshot given). After every heavy
  // sweep that configured the subnet the manager takes all of them and
  // programs their trees; without a source it leaves the MFTs alone.
  using MulticastGroupSource = std::function<std::vector<MulticastGroupMembers>(const SubnetSnapshot&)>;
  void set_multicast_groups(MulticastGroupSource source) { multicast_groups_ = std::move(source); }
  // A join or a leave (SA): these groups (ports of subnet()'s fabric; no
  // members: deleted) are programmed at the next poll(), outside the SA's
  // handler (the latest change of a group counts); a heavy sweep before
  // that takes every group anyway.
  void request_multicast_update(std::vector<MulticastGroupMembers> changed);
  // Groups whose change waits for the next poll() (one per group, however
  // many joins and leaves of it came in).
  size_t multicast_changes_pending() const { return multicast_pending_.size(); }
  // The forwarding state the switches were last programmed with (the SA's
  // MulticastForwardingTableRecords, the mcfdbs dump), and the last update.
  const MulticastService& multicast() const { return multicast_; }
  const std::optional<MulticastUpdate>& last_multicast_update() const { return last_multicast_; }

  void set_sweep_listener(SweepListener l) { on_sweep_ = std::move(l); }
  void set_sweep_state_listener(SweepStateListener l) { on_sweep_state_ = std::move(l); }
  void set_state_listener(StateListener l) { on_state_ = std::move(l); }
  void set_multicast_listener(MulticastListener l) { on_multicast_ = std::move(l); }
  // The failure of the last heavy sweep, when it could not run at all (the
  // local port did not answer, no engine routed); empty otherwise.
  const std::string& last_error() const { return last_error_; }

  // The cooperative service for SimFabric (SimPort::set_service): answer
  // what has arrived without starting anything, so another SM's blocking
  // sweep on the same simulated fabric gets its answers.
  void serve_arrivals();

 private:
  SubnetManager(Transport& port, const Clock& clock, const SmConfig& config, routing::EngineSettings engines,
                SweepState state, LogSink& log, RouteFunction route);

  // The role's side (manager_role.cpp): carries out what the role asked
  // for (sm_role.h), in order, and feeds the answers back to it.
  void carry_out_role();
  void on_entered(SmState from, SmState to);
  void program_multicast(const SweepReport& report);
  // Every SA group with its members, as ports of the SA's snapshot.
  std::vector<MulticastGroupMembers> sa_groups() const;
  void run_multicast_changes();
  void run_heavy_sweep();
  SmAgent::TrapOutcome filter_trap(const MadPacket& trap, const wire::Notice& notice);
  void poll_storms(Micros now, uint64_t trap_requests);
  void quarantine_after(SweepReport& report, Micros now);
  void set_phys_state(const SubnetSnapshot* where, Guid node, PortNum port, PhysState phys, const char* why);
  // Incremental resweeps (manager_incremental.cpp): a trap or a light sweep
  // names the switches that changed; the next sweep reads only their region,
  // or is a heavy one when in doubt.
  void note_trap(const wire::Notice& notice);
  void take_traps(bool trapped);
  void plan_after_light_sweep(const LightSweepResult& result);
  void run_incremental_sweep();
  bool incremental_allowed() const;
  // After a sweep that ran (heavy or incremental): the SA, multicast, the
  // snapshots, the listener.
  void finish_sweep(SweepKind kind, Micros started, Result<SweepReport> report);
  IncrementalPlan incremental_;
  IncrementalPlan trapped_;  // what the traps since the last poll named
  void want_heavy_sweep() { scheduler_.want_heavy(); }
  void poll_as_master(Micros now, uint64_t trapped);
  bool elect(const DiscoveryResult& discovery);
  void run_light_sweep();
  void send_poll(const RemoteSm& master, Micros timeout);
  void send_handover(const RemoteSm& to);
  void send_acknowledge(const RemoteSm& to, SmState as_state);
  void probe_handover(const RemoteSm& to);
  uint16_t on_control(const SmControl& control);
  void check_requester(const MadPacket& request, std::function<void(bool)> answer);
  void on_sa_mad(const MadPacket& packet);
  void publish_to_sa(const SweepReport& report, Micros now);
  void follow(const RemoteSm& master);
  std::optional<RemoteSm> known_sm(Guid guid) const;
  uint8_t advertised_priority() const { return role_.advertised_priority(); }
  SweepConfig sweep_config() const;

  const Clock& clock_;
  SmConfig config_;
  routing::EngineSettings engines_;
  std::shared_ptr<const PartitionConfig> partitions_;
  std::shared_ptr<const QosPolicy> qos_policy_;
  LogSink& log_;
  RouteFunction route_;
  AsideRunner aside_;  // given to every route function made
  MadDispatcher dispatcher_;
  SmAgent agent_;
  sa::SaAgent sa_;
  sa::SaMirror mirror_;
  PerfManager perf_;
  SweepState sweep_state_;

  SmRole role_;
  SweepScheduler scheduler_;
  std::optional<SweepReport> last_;
  std::shared_ptr<const SubnetSnapshot> subnet_, previous_subnet_;
  // The fabric as the latest sweep found it, whether it configured it or
  // stopped after the election (a standby's): who is who among requesters.
  std::optional<DiscoveryResult> standby_discovery_;
  const DiscoveryResult* latest_discovery_ = nullptr;
  bool up_ = false;
  // The guid2lid map is this SM's own: it configured the subnet since it
  // last became master. A LID that changes from then on was changed behind
  // its back, and is put back (LidOptions::restore_assigned).
  bool lids_assigned_ = false;
  std::string last_error_;
  std::vector<RemoteSm> sm_ports_;  // every IsSM port the last discovery found
  std::vector<RemoteSm> others_;    // those of them that answered SMInfo
  static constexpr SweepRecord kNoSweep{};
  std::deque<SweepRecord> history_;
  // The last subnet that was up: the nodes a sweep waits for when they go
  // silent (missing), each port beyond which one is silent with how many
  // heavy sweeps in a row it has been.
  std::shared_ptr<const SubnetSnapshot> last_up_subnet_;
  std::map<std::pair<Guid, uint8_t>, uint32_t> silent_peers_;
  bool expects_peer(Guid node, PortNum port) const;
  void count_missing(const SweepReport& report);
  uint64_t generation_ = 0;
  ManagerCounters counters_;
  void record_sweep(SweepKind kind, Micros started, Micros ended, uint64_t mads, bool ran, bool changed,
                    bool subnet_up);
  std::array<SweepKindStats, kSweepKinds.size()> sweep_stats_;
  std::optional<Micros> last_sweep_end_;
  metrics::Histogram sa_latency_{metrics::request_latency_buckets()};
  MulticastService multicast_;
  MulticastGroupSource multicast_groups_;
  // Changes waiting for the next poll, one per MLID, the latest: the members
  // given (request_multicast_update), or none for a join or leave the SA
  // handled (the SA's members are read when it is programmed). A join storm
  // of N ports queues one entry, not N copies of a growing member list.
  std::map<uint16_t, std::optional<std::vector<PortRef>>> multicast_pending_;
  std::optional<MulticastUpdate> last_multicast_;
  std::shared_ptr<const PartitionConfig> sa_partitions_;  // what the SA was last given
  SweepListener on_sweep_;
  SweepStateListener on_sweep_state_;
  StateListener on_state_;
  MulticastListener on_multicast_;
  TrapFilter traps_;
  FlapQuarantine quarantine_;
};

}  // namespace ibsm
