#include "sm/manager/subnet_manager.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "routing/vl_budget.h"
#include "sa/client.h"
#include "sa/snapshot.h"
#include "sm/config/config_reload.h"
#include "sm/manager/bad_m_key_trap.h"
#include "sm/manager/remote_sms.h"
#include "sm/manager/requester.h"
#include "sm/manager/sm_info_smp.h"
#include "sm/sweep/light_sweep.h"
#include "sm/sweep/routing_step.h"

namespace ibsm {
namespace {

namespace st = wire::sm_state;
constexpr Micros kSecond = 1'000'000;

DispatcherOptions dispatcher_options(const SmConfig& c) {
  DispatcherOptions d;
  d.window = static_cast<int>(c.max_wire_smps);
  d.timeout = Micros{c.transaction_timeout} * 1000;
  d.retries = static_cast<int>(c.transaction_retries);
  return d;
}

PerfManagerOptions perf_options(const SmConfig& c) {
  PerfManagerOptions o;
  o.enabled = c.perfmgr;
  o.sweep_time_s = c.perfmgr_sweep_time_s;
  o.max_outstanding_queries = c.perfmgr_max_outstanding_queries;
  o.ignore_cas = c.perfmgr_ignore_cas;
  o.rm_nodes = c.perfmgr_rm_nodes;
  o.log_errors = c.perfmgr_log_errors;
  o.query_cpi = c.perfmgr_query_cpi;
  return o;
}

FlapQuarantineOptions quarantine_options(const SmConfig& c) {
  FlapQuarantineOptions o;
  o.threshold = c.flap_quarantine_threshold;
  o.window = Micros{c.flap_quarantine_window_s} * kSecond;
  o.hold = Micros{c.flap_quarantine_hold_s} * kSecond;
  return o;
}

sa::SaAgentOptions sa_options(const SmConfig& c) {
  sa::SaAgentOptions o;
  o.sm_key = c.sm_key;
  return o;
}

sa::SaMirrorOptions mirror_options(const SmConfig& c) {
  sa::SaMirrorOptions o;
  o.sm_key = c.sm_key;
  return o;
}

SmRoleConfig role_config(const SmConfig& c) {
  SmRoleConfig o;
  o.poll_interval = Micros{c.sminfo_polling_timeout} * 1000;
  o.transaction_timeout = Micros{c.transaction_timeout} * 1000;
  o.polling_retry_number = c.polling_retry_number;
  o.sm_priority = c.sm_priority;
  o.elevated_priority = c.elevated_priority;
  return o;
}

Micros sweep_interval(const SmConfig& c) { return Micros{c.sweep_interval} * kSecond; }

}  // namespace

Result<std::unique_ptr<SubnetManager>> SubnetManager::create(Transport& port, const Clock& clock,
                                                             const SmConfig& config, routing::EngineSettings engines,
                                                             SweepState state, LogSink& log) {
  engines.max_vls = routing::data_vls_of_code(config.max_op_vls);  // the engines' VL budget
  auto route = make_route_function(config.routing_engine, log, engines);
  if (!route.ok()) return route.status();
  return std::unique_ptr<SubnetManager>(
      new SubnetManager(port, clock, config, std::move(engines), std::move(state), log, std::move(*route)));
}

SubnetManager::SubnetManager(Transport& port, const Clock& clock, const SmConfig& config,
                             routing::EngineSettings engines, SweepState state, LogSink& log, RouteFunction route)
    : clock_(clock),
      config_(config),
      engines_(std::move(engines)),
      log_(log),
      route_(std::move(route)),
      dispatcher_(port, clock, dispatcher_options(config), log),
      agent_(dispatcher_, {port.local_port().port_guid, config.sm_key, config.sm_priority}, log),
      sa_([this](const MadPacket& p) { (void)dispatcher_.send_now(p); }, sa_options(config), log),
      mirror_([this](const MadPacket& p) { (void)dispatcher_.send_now(p); }, mirror_options(config), log),
      perf_(dispatcher_, clock, log, perf_options(config)),
      sweep_state_(std::move(state)),
      role_(role_config(config), log),
      scheduler_(sweep_interval(config), log) {
  // Every SA-class MAD: the mirror's answers first, then the SA itself. The
  // SA answers whatever the SM is doing, from the last published snapshot.
  dispatcher_.set_class_handler(wire::mgmt_class::subn_adm, [this](const MadPacket& p) { on_sa_mad(p); });
  sa_.set_answer_listener([this](const sa::SaAnswerKind&, Micros arrived) {
    sa_latency_.observe(static_cast<double>(clock_.now() - arrived) / 1e6);
  });
  agent_.set_trap_listener([this](const wire::Notice& n) {
    note_trap(n);
    if (n.is_generic && n.trap_number == wire::trap_number::bad_m_key)
      ibsm::log(log_, LogLevel::warn, Subsystem::state, "{}", describe_bad_m_key(n, subnet_.get()));
    sa_.publish(n, clock_.now());
  });
  agent_.set_trap_filter([this](const MadPacket& p, const wire::Notice& n) { return filter_trap(p, n); });
  quarantine_.set_options(quarantine_options(config_));
  agent_.set_control_handler([this](const SmControl& c) { return on_control(c); });
  agent_.set_sm_requester_check(
      [this](const MadPacket& p, std::function<void(bool)> answer) { check_requester(p, std::move(answer)); });
  agent_.set_state(to_wire(role_.state()));
  // The groups whose trees the SM programs are the SA's (a test may set others).
  multicast_groups_ = [this](const SubnetSnapshot&) { return sa_groups(); };
  ibsm::log(log_, LogLevel::info, Subsystem::state, "Entering DISCOVERING state");
}

SubnetManager::~SubnetManager() = default;

ManagerCounters SubnetManager::counters() const {
  ManagerCounters c = counters_;
  static_cast<SmRoleCounters&>(c) = role_.counters();
  c.sweep_requests_coalesced = scheduler_.coalesced();
  return c;
}

SweepConfig SubnetManager::sweep_config() const {
  SweepConfig s;
  s.lids.lmc = config_.lmc;
  s.lids.lmc_esp0 = config_.lmc_esp0;
  s.lids.reassign_all = config_.reassign_lids && sweep_state_.heavy_sweeps == 0;
  s.lids.restore_assigned = lids_assigned_;
  s.subnet.subnet_prefix = config_.subnet_prefix;
  s.subnet.subnet_timeout = config_.subnet_timeout;
  s.subnet.max_op_vls = config_.max_op_vls;
  s.subnet.head_of_queue_life = config_.head_of_queue_lifetime;
  s.subnet.m_key = config_.m_key;
  s.subnet.m_key_protect_bits = config_.m_key_protection_level;
  s.subnet.m_key_lease_period = config_.m_key_lease_period;
  s.m_key_lookup = config_.m_key_lookup;
  s.switch_life_time = config_.packet_life_time;
  s.route = route_;
  s.partitions = partitions_;
  s.partition_options = PartitionOptions{config_.part_enforce, config_.allow_both_pkeys};
  s.vl = VlSettings{config_.qos, qos_tables(config_)};
  s.qos_policy = qos_policy_;
  s.trust_reset_p_key_tables = config_.pkey_trust_reset_tables;
  s.expects_peer = [this](Guid node, PortNum port) { return expects_peer(node, port); };
  s.last_seen = last_up_subnet_;
  return s;
}

void SubnetManager::poll(Micros now) {
  serve_arrivals();
  const uint64_t trapped = agent_.take_sweep_requests();
  poll_storms(now, trapped);
  switch (role_.state()) {
    case SmState::discovering:
      if (scheduler_.discovering_due(now)) run_heavy_sweep();
      break;
    case SmState::master:
      poll_as_master(now, trapped);
      break;
    case SmState::standby:
      role_.timers(now);  // the poll of the master
      carry_out_role();
      break;
    case SmState::not_active:  // only a control packet moves it
      break;
  }
  // The PMA sweep, between the SM's own work: what it submitted goes out now.
  if (is_master() && !role_.handover_to() && perf_.poll(now, subnet_)) dispatcher_.poll();
}

void SubnetManager::poll_as_master(Micros now, uint64_t trapped) {
  take_traps(trapped);
  if (role_.handover_to()) {  // no sweeps while handing over
    role_.timers(now);        // the probe of the SM asked, when no ACKNOWLEDGE came in time
    carry_out_role();
    return;
  }
  switch (scheduler_.master_due(now, !incremental_.empty(), !multicast_pending_.empty())) {
    case SweepScheduler::Due::heavy:
      if (scheduler_.thawed()) log(log_, LogLevel::info, Subsystem::sweep, "the fabric answers again: heavy sweep now");
      run_heavy_sweep();
      break;
    case SweepScheduler::Due::probes:
      if (scheduler_.send_probes(now, dispatcher_, config_.m_key)) dispatcher_.poll();
      break;
    case SweepScheduler::Due::incremental:
      run_incremental_sweep();
      break;
    case SweepScheduler::Due::multicast:
      run_multicast_changes();
      break;
    case SweepScheduler::Due::light:
      run_light_sweep();
      break;
    case SweepScheduler::Due::none:
      break;
  }
}

void SubnetManager::serve_arrivals() {
  const Micros now = clock_.now();
  dispatcher_.poll();
  sa_.poll(now);
  mirror_.poll(now);
}

Micros SubnetManager::next_deadline() const {
  const Micros now = clock_.now();
  Micros t = now + kSecond;
  auto soonest = [&t](std::optional<Micros> d) {
    if (d) t = std::min(t, *d);
  };
  soonest(dispatcher_.next_timer());
  soonest(sa_.next_deadline());
  soonest(mirror_.next_deadline());
  switch (role_.state()) {
    case SmState::discovering:
      soonest(scheduler_.discovering_deadline());
      break;
    case SmState::master:
      soonest(traps_.next_deadline());
      soonest(quarantine_.next_deadline());
      if (role_.handover_to()) {
        soonest(role_.next_deadline());  // the ACKNOWLEDGE's deadline (a probe: the dispatcher's timer)
      } else {
        soonest(scheduler_.master_deadline(now, !multicast_pending_.empty() || !incremental_.empty()));
        if (subnet_) soonest(perf_.next_deadline());
      }
      break;
    case SmState::standby:
      soonest(role_.next_deadline());  // the next poll of the master
      break;
    case SmState::not_active:
      break;
  }
  return std::max(t, now);
}

void SubnetManager::run_heavy_sweep() {
  scheduler_.heavy_started();
  traps_.sweep_started();
  SweepConfig sc = sweep_config();
  sc.after_discovery = [this](const DiscoveryResult& d) { return elect(d); };
  incremental_.clear();  // a heavy sweep reads every region
  const Micros t0 = clock_.now();
  finish_sweep(SweepKind::heavy, t0, heavy_sweep(dispatcher_, clock_, sweep_state_, sc, log_));
}

void SubnetManager::finish_sweep(SweepKind kind, Micros t0, Result<SweepReport> report) {
  const Micros now = clock_.now();
  record_sweep(report.ok() && report->stopped_after_discovery ? SweepKind::discovery : kind, t0, now,
               report.ok() ? report->total_mads() : 0, report.ok(), false, report.ok() && report->subnet_up);
  if (!report.ok()) {
    last_error_ = report.status().message();
    log(log_, LogLevel::error, Subsystem::sweep, "heavy sweep failed: {}", last_error_);
    up_ = false;
    scheduler_.failed(now, {}, is_master());
    return;
  }
  last_error_.clear();
  if (report->stopped_after_discovery) {
    ++counters_.discovery_sweeps;
    standby_discovery_ = std::move(report->discovery);
    latest_discovery_ = &*standby_discovery_;
    // Still DISCOVERING (a control packet came mid-sweep, or the election
    // could not settle): look again in a second.
    if (role_.state() == SmState::discovering) scheduler_.discovery_only(now);
    return;
  }
  ++(kind == SweepKind::incremental ? counters_.incremental_sweeps : counters_.heavy_sweeps);
  lids_assigned_ = is_master();
  up_ = report->subnet_up;
  count_missing(*report);
  quarantine_after(*report, now);
  if (up_) last_up_subnet_ = report->subnet;
  if (up_) {
    log(log_, LogLevel::info, Subsystem::sweep, "SUBNET UP: {} nodes, {} mads in {:.3f} s{}",
        report->discovery.fabric.node_count(), report->total_mads(), static_cast<double>(now - t0) / 1e6,
        kind == SweepKind::incremental ? " (incremental sweep)" : "");
  } else {
    log(log_, LogLevel::error, Subsystem::sweep, "subnet not up: {} problems",
        std::count_if(report->problems.begin(), report->problems.end(),
                      [](const SweepProblem& p) { return p.blocks_subnet_up(); }));
    scheduler_.failed(now, report->problems, is_master());
  }
  scheduler_.configured(now, up_);
  if (on_sweep_state_) on_sweep_state_(sweep_state_);
  // The SA first: its groups resolve their members in the new snapshot,
  // and the trees are built for those.
  publish_to_sa(*report, now);
  program_multicast(*report);
  sa_.set_multicast_tables(multicast_.tables());
  previous_subnet_ = std::move(subnet_);
  subnet_ = report->subnet;
  last_ = std::move(*report);
  latest_discovery_ = &last_->discovery;
  standby_discovery_.reset();
  if (on_sweep_) on_sweep_(*last_, now - t0);
}

bool SubnetManager::expects_peer(Guid node, PortNum port) const {
  if (!last_up_subnet_ || config_.missing_node_sweeps == 0) return false;
  if (quarantine_.is_held(PortKey{node, port})) return false;  // held down: what lies beyond is cut off on purpose
  const Fabric& f = last_up_subnet_->fabric;
  const auto n = f.find_by_node_guid(node);
  if (!n || port.value > f.node(*n).num_ports || !f.node(*n).port(port.value).connected()) return false;
  const auto it = silent_peers_.find({node, port.value});
  return it == silent_peers_.end() || it->second < config_.missing_node_sweeps;
}

// After each heavy sweep: how long each silent node the subnet had has been
// silent. One that answers again, or whose neighbour's port went down (it is
// not even looked for then), is forgotten; one silent too long is gone.
void SubnetManager::count_missing(const SweepReport& report) {
  std::map<std::pair<Guid, uint8_t>, uint32_t> now_silent;
  for (const SweepProblem& p : report.problems) {
    if (p.kind != SweepProblemKind::missing || !p.port) continue;
    const auto key = std::pair{p.node, p.port->value};
    const auto it = silent_peers_.find(key);
    const uint32_t sweeps = (it == silent_peers_.end() ? 0 : it->second) + 1;
    now_silent[key] = sweeps;
    if (sweeps >= config_.missing_node_sweeps)
      log(log_, LogLevel::warn, Subsystem::sweep,
          "the node beyond port {} of {} stayed silent for {} heavy sweeps: taken as gone", key.second, key.first,
          sweeps);
  }
  silent_peers_ = std::move(now_silent);
}

void SubnetManager::run_light_sweep() {
  if (!last_ || !last_->subnet) {
    want_heavy_sweep();
    return;
  }
  scheduler_.light_started();
  ++counters_.light_sweeps;
  const Micros t0 = clock_.now();
  const uint64_t sent0 = dispatcher_.stats().sent;
  LightSweepResult r = light_sweep(dispatcher_, *last_->subnet, log_);
  if (!r.changed && !sm_ports_.empty()) {
    // A standby's priority may have changed (an operator's SIGHUP), or an SM
    // that did not answer at the heavy sweep (a master whose link flapped)
    // answers now: OpenSM, too, reads the other SMs' SMInfo in its light sweep.
    std::vector<RemoteSm> now_known = read_sm_infos(dispatcher_, sm_ports_, agent_.sm_info(true), {}, log_);
    Election e = elect_while_master(agent_.sm_info(true), now_known);
    if (e.verdict == Verdict::hand_over) {
      log(log_, LogLevel::info, Subsystem::state, "the sm at port {} outranks this one now", e.peer->port_guid);
      r.changed = true;
    }
    if (now_known.size() != others_.size()) r.changed = true;  // one stopped or started answering: look again
    // What they said now (a standby that was DISCOVERING at the heavy
    // sweep): the status and an operator's handover read it.
    others_ = std::move(now_known);
  }
  // The light sweep's MADs are what the dispatcher sent meanwhile (SMInfo
  // reads included, and any answer the agents sent from within its waits).
  record_sweep(SweepKind::light, t0, clock_.now(), dispatcher_.stats().sent - sent0, true, r.changed, up_);
  if (!r.changed) log(log_, LogLevel::debug, Subsystem::sweep, "light sweep: no change, {} mads", r.mads);
  if (r.changed) {
    plan_after_light_sweep(r);
  } else {
    scheduler_.light_quiet(clock_.now());
  }
}

// One sweep ended: its record in the history, and, when it ran (a heavy
// sweep that could not run at all is history only), its kind's duration and
// MADs for the metrics.
void SubnetManager::record_sweep(SweepKind kind, Micros started, Micros ended, uint64_t mads, bool ran, bool changed,
                                 bool subnet_up) {
  history_.push_back(SweepRecord{sweep_kind_name(kind), started, ended - started, mads, changed, subnet_up});
  if (history_.size() > kSweepHistory) history_.pop_front();
  if (!ran) return;
  sweep_stats_[static_cast<size_t>(kind)].record(ended - started, mads);
  last_sweep_end_ = ended;
}

// Known to the latest discovery as an SM port: answered at once. Otherwise
// (an SM that started since, whose Get came before the trap 144 sweep) its
// PortInfo is read now, over the reverse of the route its Get took, and the
// Get is answered when that read is.
void SubnetManager::check_requester(const MadPacket& request, std::function<void(bool)> answer) {
  if (auto from = latest_discovery_ ? requester_port(*latest_discovery_, request) : std::nullopt) {
    const auto& infos = latest_discovery_->port_info;
    if (from->node.value < infos.size() && from->port < infos[from->node.value].size() &&
        (infos[from->node.value][from->port].capability_mask & wire::port_cap::is_sm) != 0)
      return answer(true);
  }
  auto probe = port_info_probe(request, config_.m_key);
  if (!probe) return answer(false);
  RequestOptions once;
  once.retries = 0;
  dispatcher_.submit(*probe, [answer = std::move(answer)](Result<MadPacket> r) {
    bool is_sm = false;
    if (r.ok()) {
      auto reply = wire::parse_smp(r->data);
      if (reply.ok() && reply->status() == 0) {
        auto pi = wire::decode_port_info(reply->data());
        is_sm = pi.ok() && (pi->capability_mask & wire::port_cap::is_sm) != 0;
      }
    }
    answer(is_sm);
  }, once);
}

void SubnetManager::on_sa_mad(const MadPacket& p) {
  const Micros now = clock_.now();
  if (mirror_.handle(p, now)) return;
  sa_.handle(p, now);
  // Joins and leaves: their trees are programmed at the next poll (not
  // here: this may run inside a sweep's wait on the dispatcher).
  // Only the MLID is queued: copying the members per join made a storm of
  // N joins cost N^2 time and memory.
  if (std::vector<Lid> changed = sa_.take_multicast_changes(); !changed.empty() && is_master())
    for (Lid mlid : changed) multicast_pending_[mlid.value] = std::nullopt;
}

// The SA answers from the subnet this sweep left programmed: the snapshot is
// swapped only now, after the switches carry the new tables, so between
// routing and programming the old paths are still the ones served.
void SubnetManager::publish_to_sa(const SweepReport& report, Micros now) {
  if (!report.subnet) return;
  sa::SaSnapshotOptions o;
  o.sm_key = config_.sm_key;
  o.sm_priority = advertised_priority();
  o.sm_state = st::master;
  o.sm_act_count = static_cast<uint32_t>(dispatcher_.stats().sent);
  o.generation = ++generation_;
  auto snapshot = sa::build_sa_snapshot(report.subnet, o);
  if (!snapshot.ok()) {
    log(log_, LogLevel::error, Subsystem::sa, "SA keeps the previous subnet: {}", snapshot.status().message());
    return;
  }
  // The partitions first: their predefined groups exist with the snapshot.
  if (report.subnet->partitions != sa_partitions_) {
    sa_partitions_ = report.subnet->partitions;
    sa_.set_partitions(sa_partitions_, now);
  }
  sa_.set_snapshot(std::make_shared<const sa::SaSnapshot>(std::move(*snapshot)), now);
  // What changed with the snapshot (members whose ports left, predefined
  // groups) is rebuilt whole by the multicast step that follows.
  (void)sa_.take_multicast_changes();
}

void SubnetManager::set_aside_runner(AsideRunner aside) {
  aside_ = std::move(aside);
  // The chain was checked when the manager was made: it builds again.
  auto route = make_route_function(config_.routing_engine, log_, engines_, aside_);
  if (route.ok()) route_ = std::move(*route);
}

void SubnetManager::reconfigure(const SmConfig& config) {
  bool route_ok = true;
  if (config.routing_engine != config_.routing_engine || config.max_op_vls != config_.max_op_vls) {
    engines_.max_vls = routing::data_vls_of_code(config.max_op_vls);
    auto route = make_route_function(config.routing_engine, log_, engines_, aside_);
    route_ok = route.ok();
    if (!route.ok()) {
      log(log_, LogLevel::error, Subsystem::routing, "keeping routing {}: {}", config_.routing_engine,
          route.status().message());
    } else {
      route_ = std::move(*route);
    }
  }
  // Only what may change at run time (the config table's hot-reload keys);
  // a routing chain that does not build leaves the old one.
  SmConfig next = apply_reloadable(config_, config);
  if (!route_ok) next.routing_engine = config_.routing_engine;
  config_ = next;
  role_.reconfigure(role_config(config_));  // the operator's priority, as configured, counts again
  scheduler_.set_interval(sweep_interval(config_));
  agent_.set_priority(advertised_priority());
  dispatcher_.set_options(dispatcher_options(config_));
  perf_.set_options(perf_options(config_));
  quarantine_.set_options(quarantine_options(config_));
  want_heavy_sweep();
  log(log_, LogLevel::info, Subsystem::state, "configuration reloaded: priority {}, sweep interval {} s",
      config_.sm_priority, config_.sweep_interval);
}

Lid SubnetManager::own_lid() const {
  if (is_master() && subnet_) return subnet_->sm_lid;
  if (!latest_discovery_) return Lid{};
  const DiscoveryResult& d = *latest_discovery_;
  if (d.local_node.value >= d.port_info.size() || d.local_port >= d.port_info[d.local_node.value].size()) return Lid{};
  return d.port_info[d.local_node.value][d.local_port].lid;
}

Status SubnetManager::request_light_sweep() {
  if (!is_master())
    return failed_precondition_error(fmt::format("this sm is {}: only the master sweeps", state()));
  scheduler_.want_light();
  return {};
}

Status SubnetManager::request_reroute() {
  if (!is_master())
    return failed_precondition_error(fmt::format("this sm is {}: only the master routes", state()));
  scheduler_.want_heavy_now();
  return {};
}

}  // namespace ibsm
