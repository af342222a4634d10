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
      sweep_state_(std::move(state)) {
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
  agent_.set_state(state_);
  // The groups whose trees the SM programs are the SA's (a test may set others).
  multicast_groups_ = [this](const SubnetSnapshot&) { return sa_groups(); };
  ibsm::log(log_, LogLevel::info, Subsystem::state, "Entering DISCOVERING state");
}

SubnetManager::~SubnetManager() = default;

Micros SubnetManager::interval() const { return Micros{config_.sweep_interval} * kSecond; }
Micros SubnetManager::poll_interval() const { return Micros{config_.sminfo_polling_timeout} * 1000; }

uint8_t SubnetManager::advertised_priority() const {
  if (yielded_ && state_ != st::master) return 0;
  if (state_ == st::master) return std::max(config_.sm_priority, config_.elevated_priority);
  return config_.sm_priority;
}

void SubnetManager::enter(uint8_t to, const char* why) {
  if (to == state_) return;
  const uint8_t from = state_;
  state_ = to;
  if (to == st::master) yielded_ = false;  // master again (a takeover, a HANDOVER): its own priority
  agent_.set_state(to);
  agent_.set_priority(advertised_priority());
  ++counters_.state_changes;
  // OpenSM's wording, so operators' log watchers find it.
  log(log_, LogLevel::info, Subsystem::state, "Entering {} state ({})", wire::sm_state_name(to), why);
  if (to != st::master) lids_assigned_ = false;  // another SM may assign LIDs meanwhile
  if (to != st::standby) {
    master_.reset();
    agent_.set_followed_master(Guid{});
  }
  if (to == st::standby || to == st::not_active) {
    // Clients ask the SA at the master's LID; a standby's SA is BUSY.
    sa_.set_snapshot(nullptr, clock_.now());
    handover_to_.reset();
  }
  if (on_state_) on_state_(from, to);
}

void SubnetManager::follow(const RemoteSm& master) {
  enter(st::standby, "another sm is master or outranks this one");
  master_ = master;
  agent_.set_followed_master(master.port_guid);
  poll_failures_ = 0;
  poll_in_flight_ = false;
  next_poll_ = clock_.now();
  log(log_, LogLevel::info, Subsystem::state, "following the sm at port {} (lid {}, priority {}, {})", master.port_guid,
      master.lid, master.info.priority, wire::sm_state_name(master.info.sm_state));
}

std::optional<RemoteSm> SubnetManager::known_sm(Guid guid) const {
  if (master_ && master_->port_guid == guid) return master_;
  for (const RemoteSm& r : others_)
    if (r.port_guid == guid) return r;
  return std::nullopt;
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
  switch (state_) {
    case st::discovering:
      if (now >= retry_at_) run_heavy_sweep();
      break;
    case st::master:
      take_traps(trapped);
      if (handover_to_) {
        if (now >= handover_deadline_ && !handover_probe_) probe_handover();
        break;
      }
      if (heavy_due_ && now >= retry_at_ && (!retry_.pending() || retry_.due(now))) {
        if (retry_.pending() && retry_.thawed())
          log(log_, LogLevel::info, Subsystem::sweep, "the fabric answers again: heavy sweep now");
        run_heavy_sweep();
      } else if (heavy_due_ && retry_.pending()) {
        if (retry_.poll(now, dispatcher_, config_.m_key)) dispatcher_.poll();
      } else if (!heavy_due_ && !incremental_.empty()) {
        run_incremental_sweep();
      } else if (!heavy_due_ && !multicast_pending_.empty()) {
        run_multicast_changes();
      } else if (!heavy_due_ && (light_due_ || (config_.sweep_interval > 0 && now >= next_light_))) {
        run_light_sweep();
      }
      break;
    case st::standby:
      poll_master(now);
      break;
    default:  // NOT ACTIVE: only a control packet moves it
      break;
  }
  // The PMA sweep, between the SM's own work: what it submitted goes out now.
  if (is_master() && !handover_to_ && perf_.poll(now, subnet_)) dispatcher_.poll();
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
  switch (state_) {
    case st::discovering:
      soonest(retry_at_);
      break;
    case st::master:
      soonest(traps_.next_deadline());
      soonest(quarantine_.next_deadline());
      if (handover_to_) {
        if (!handover_probe_) soonest(handover_deadline_);  // else the dispatcher's timer
      } else if (heavy_due_) {
        soonest(std::max({retry_at_, retry_.pending() ? retry_.next_deadline() : 0, now}));
      } else if (!multicast_pending_.empty() || light_due_ || !incremental_.empty()) {
        soonest(now);
      } else if (config_.sweep_interval > 0) {
        soonest(next_light_);
      }
      if (!handover_to_ && subnet_) soonest(perf_.next_deadline());
      break;
    case st::standby:
      if (!poll_in_flight_) soonest(next_poll_);
      break;
    default:
      break;
  }
  return std::max(t, now);
}

void SubnetManager::run_heavy_sweep() {
  heavy_due_ = false;
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
    schedule_retry(now, {});
    return;
  }
  last_error_.clear();
  if (report->stopped_after_discovery) {
    ++counters_.discovery_sweeps;
    standby_discovery_ = std::move(report->discovery);
    latest_discovery_ = &*standby_discovery_;
    // Still DISCOVERING (a control packet came mid-sweep, or the election
    // could not settle): look again in a second.
    if (state_ == st::discovering) retry_at_ = now + kSecond;
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
    retry_.succeeded();
  } else {
    log(log_, LogLevel::error, Subsystem::sweep, "subnet not up: {} problems",
        std::count_if(report->problems.begin(), report->problems.end(),
                      [](const SweepProblem& p) { return p.blocks_subnet_up(); }));
    schedule_retry(now, report->problems);
  }
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
  next_light_ = now + interval();
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

void SubnetManager::schedule_retry(Micros now, const std::vector<SweepProblem>& problems) {
  heavy_due_ = true;
  if (state_ != st::master) {
    retry_at_ = now + kSecond;  // DISCOVERING: the local port is not up yet
    return;
  }
  retry_.failed(now, problems, interval());
  retry_at_ = 0;
  log(log_, LogLevel::info, Subsystem::sweep, "heavy sweep again {} ({} failed in a row; probing the fabric every second)",
      retry_.retry_at() <= now ? std::string("at once") : fmt::format("in {:.0f} s", (retry_.retry_at() - now) / 1e6),
      retry_.failures());
}

bool SubnetManager::elect(const DiscoveryResult& discovery) {
  // A control packet may have arrived during discovery (DISABLE, say).
  if (state_ != st::discovering && state_ != st::master) return false;
  wire::SmInfo self = agent_.sm_info(true);
  sm_ports_ = sm_ports(discovery, self.guid);
  others_ = read_sm_infos(dispatcher_, sm_ports_, self, presumed_dead_, log_);
  presumed_dead_ = Guid{};
  if (state_ == st::discovering) {
    Election e = elect_while_discovering(self, others_);
    if (e.verdict == Verdict::follow) {
      follow(*e.peer);
      return false;
    }
    enter(st::master, others_.empty() ? "no other sm" : "no sm outranks this one");
    // A takeover: what the standby mirrored of the old master's SA is served
    // from now on (services, subscriptions), so no client re-registers.
    (void)mirror_.apply_to(sa_, clock_.now());
    return true;
  }
  Election e = elect_while_master(agent_.sm_info(true), others_);
  if (e.verdict == Verdict::hand_over) {
    hand_over(*e.peer);
    return false;
  }
  return true;
}

void SubnetManager::run_light_sweep() {
  if (!last_ || !last_->subnet) {
    want_heavy_sweep();
    return;
  }
  light_due_ = false;
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
    next_light_ = clock_.now() + interval();
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

void SubnetManager::poll_master(Micros now) {
  if (!master_) {
    enter(st::discovering, "no master to follow");
    want_heavy_sweep();
    return;
  }
  if (poll_in_flight_ || now < next_poll_) return;
  MadPacket p = sm_info_smp(wire::method::get, 0, master_->path, agent_.sm_info(true));
  // One attempt per poll: polling_retry_number counts the misses, and a
  // dispatcher retry would only hide one.
  RequestOptions once;
  once.retries = 0;
  once.timeout = std::min<Micros>(poll_interval(), Micros{config_.transaction_timeout} * 1000);
  poll_in_flight_ = true;
  ++counters_.polls_sent;
  next_poll_ = now + poll_interval();
  dispatcher_.submit(p, [this](Result<MadPacket> r) { on_poll_answer(std::move(r)); }, once);
}

void SubnetManager::on_poll_answer(Result<MadPacket> answer) {
  poll_in_flight_ = false;
  if (state_ != st::standby || !master_) return;
  std::string why;
  auto info = sm_info_of(answer);
  if (!info.ok()) {
    why = info.status().message();
  } else if (info->sm_state != st::master) {
    why = fmt::format("it is {}", wire::sm_state_name(info->sm_state));
  } else {
    poll_failures_ = 0;
    master_->info = *info;
    // Each answered poll also refreshes the mirror of the master's SA.
    if (!mirror_.busy()) mirror_.start(sa::sa_address(master_->lid), clock_.now());
    return;
  }
  ++counters_.polls_failed;
  ++poll_failures_;
  log(log_, LogLevel::info, Subsystem::state, "master at port {} (lid {}): poll {} of {} failed: {}",
      master_->port_guid, master_->lid, poll_failures_, config_.polling_retry_number, why);
  if (poll_failures_ < config_.polling_retry_number) return;
  log(log_, LogLevel::warn, Subsystem::state, "the master at port {} (lid {}) stopped answering: taking over",
      master_->port_guid, master_->lid);
  ++counters_.takeovers;
  presumed_dead_ = master_->port_guid;
  enter(st::discovering, "the master stopped answering");
  want_heavy_sweep();
  retry_at_ = 0;
}

void SubnetManager::hand_over(const RemoteSm& to) {
  ++counters_.handovers_sent;
  handover_to_ = to;
  handover_deadline_ = clock_.now() + std::max(2 * poll_interval(), kSecond);
  log(log_, LogLevel::info, Subsystem::state, "handing over to the sm at port {} (lid {}, priority {}, {})",
      to.port_guid, to.lid, to.info.priority, wire::sm_state_name(to.info.sm_state));
  MadPacket p = sm_info_smp(wire::method::set, wire::sm_info_control::handover, to.path, agent_.sm_info(true));
  dispatcher_.submit(p, [this, guid = to.port_guid](Result<MadPacket> r) {
    auto answered = sm_info_of(r);
    if (answered.ok() || !handover_to_ || handover_to_->port_guid != guid) return;  // now wait for the ACKNOWLEDGE
    log(log_, LogLevel::warn, Subsystem::state, "HANDOVER to port {} not taken ({}): staying master", guid,
        answered.status().message());
    handover_to_.reset();
    yielded_ = false;
    want_heavy_sweep();
  });
}

// No ACKNOWLEDGE in time. OpenSM takes a HANDOVER and becomes master without
// sending one, so the SM asked is read once more: MASTER means it took the
// mastership, and this SM follows it; anything else, and this SM stays master.
void SubnetManager::probe_handover() {
  handover_probe_ = true;
  MadPacket p = sm_info_smp(wire::method::get, 0, handover_to_->path, agent_.sm_info(true));
  dispatcher_.submit(p, [this, guid = handover_to_->port_guid](Result<MadPacket> r) {
    handover_probe_ = false;
    if (!handover_to_ || handover_to_->port_guid != guid || state_ != st::master) return;
    auto info = sm_info_of(r);
    RemoteSm to = *handover_to_;
    handover_to_.reset();
    if (info.ok() && info->sm_state == st::master && info->guid == guid) {
      ++counters_.handovers_unacknowledged;
      log(log_, LogLevel::info, Subsystem::state, "the sm at port {} is MASTER without an ACKNOWLEDGE: following it",
          guid);
      to.info = *info;
      follow(to);
      return;
    }
    ++counters_.handover_timeouts;
    yielded_ = false;
    log(log_, LogLevel::warn, Subsystem::state, "no ACKNOWLEDGE from port {}: staying master", guid);
    want_heavy_sweep();
  });
}

// The ACKNOWLEDGE carries the state this SM was in when the HANDOVER came
// (STANDBY): OpenSM refuses an ACKNOWLEDGE from an SM that says MASTER
// ("ERR 2F04: Check legality failed").
void SubnetManager::send_acknowledge(const RemoteSm& to, uint8_t as_state) {
  wire::SmInfo self = agent_.sm_info(true);
  self.sm_state = as_state;
  MadPacket p = sm_info_smp(wire::method::set, wire::sm_info_control::acknowledge, to.path, self);
  dispatcher_.submit(p, [this, guid = to.port_guid](Result<MadPacket> r) {
    if (!r.ok()) log(log_, LogLevel::warn, Subsystem::state, "ACKNOWLEDGE to port {}: {}", guid, r.status().message());
  });
}

uint16_t SubnetManager::on_control(const SmControl& c) {
  namespace ctl = wire::sm_info_control;
  const uint16_t ok = wire::mad_status::ok;
  const uint16_t invalid = wire::mad_status::invalid_field;
  switch (c.modifier) {
    case ctl::handover: {
      if (state_ == st::not_active) return invalid;
      ++counters_.handovers_received;
      std::optional<RemoteSm> from = known_sm(c.sender.guid);
      const uint8_t was = state_;
      if (state_ != st::master) {
        enter(st::master, "HANDOVER received");
        (void)mirror_.apply_to(sa_, clock_.now());
      }
      want_heavy_sweep();
      retry_at_ = 0;
      // The answer (sent when this returns) goes first; the ACKNOWLEDGE is
      // queued behind it (IBA 14.4.1.2: the new master acknowledges).
      if (from) {
        send_acknowledge(*from, was);
      } else {
        log(log_, LogLevel::warn, Subsystem::state, "HANDOVER from unknown port {}: no path for the ACKNOWLEDGE",
            c.sender.guid);
      }
      return ok;
    }
    case ctl::acknowledge:
      if (state_ != st::master || !handover_to_ || handover_to_->port_guid != c.sender.guid) return invalid;
      ++counters_.acknowledges_received;
      {
        RemoteSm to = *handover_to_;
        handover_to_.reset();
        to.info = c.sender;
        follow(to);
      }
      return ok;
    case ctl::disable:
      return go_not_active("DISABLE received").ok() ? ok : invalid;
    case ctl::standby:
      return leave_not_active("STANDBY received").ok() ? ok : invalid;
    case ctl::discover:
      if (state_ != st::standby && state_ != st::not_active) return invalid;
      enter(st::discovering, "DISCOVER received");
      want_heavy_sweep();
      retry_at_ = 0;
      return ok;
    default:
      return invalid;
  }
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
  yielded_ = false;  // the operator's priority, as configured, counts again
  agent_.set_priority(advertised_priority());
  dispatcher_.set_options(dispatcher_options(config_));
  perf_.set_options(perf_options(config_));
  quarantine_.set_options(quarantine_options(config_));
  want_heavy_sweep();
  log(log_, LogLevel::info, Subsystem::state, "configuration reloaded: priority {}, sweep interval {} s",
      config_.sm_priority, config_.sweep_interval);
}

Status SubnetManager::go_not_active(const char* why) {
  if (state_ == st::master)
    return failed_precondition_error("this sm is MASTER: a master does not accept DISABLE (IBA 14.4.1), hand over first");
  if (state_ == st::not_active) return {};
  enter(st::not_active, why);
  return {};
}

Status SubnetManager::leave_not_active(const char* why) {
  if (state_ != st::not_active)
    return failed_precondition_error(fmt::format("this sm is {}, not NOT ACTIVE", wire::sm_state_name(state_)));
  // Back in the game: discovery finds the master to follow.
  enter(st::discovering, why);
  want_heavy_sweep();
  retry_at_ = 0;
  return {};
}

Lid SubnetManager::own_lid() const {
  if (is_master() && subnet_) return subnet_->sm_lid;
  if (!latest_discovery_) return Lid{};
  const DiscoveryResult& d = *latest_discovery_;
  if (d.local_node.value >= d.port_info.size() || d.local_port >= d.port_info[d.local_node.value].size()) return Lid{};
  return d.port_info[d.local_node.value][d.local_port].lid;
}

Status SubnetManager::disable() { return go_not_active("disabled by the operator"); }
Status SubnetManager::enable() { return leave_not_active("enabled by the operator"); }

Status SubnetManager::request_light_sweep() {
  if (state_ != st::master)
    return failed_precondition_error(fmt::format("this sm is {}: only the master sweeps", wire::sm_state_name(state_)));
  light_due_ = true;
  return {};
}

Status SubnetManager::request_reroute() {
  if (state_ != st::master)
    return failed_precondition_error(fmt::format("this sm is {}: only the master routes", wire::sm_state_name(state_)));
  want_heavy_sweep();
  retry_at_ = 0;
  return {};
}

Result<Guid> SubnetManager::request_handover() {
  if (state_ != st::master)
    return failed_precondition_error(fmt::format("this sm is {}, not MASTER", wire::sm_state_name(state_)));
  if (handover_to_) return failed_precondition_error(fmt::format("a handover to port {} is under way", handover_to_->port_guid));
  const RemoteSm* best = nullptr;
  for (const RemoteSm& o : others_)
    if (o.info.sm_state == st::standby && (!best || outranks(o.info, best->info))) best = &o;
  if (!best) return not_found_error("no STANDBY sm known to hand over to");
  const Guid self = agent_.sm_info(true).guid;
  if (!outranks(best->info.priority, best->port_guid, 0, self))
    return failed_precondition_error(fmt::format(
        "the sm at port {} (priority {}) would hand the mastership back to this one (priority 0, lower guid)",
        best->port_guid, best->info.priority));
  log(log_, LogLevel::info, Subsystem::state, "handover requested by the operator: advertising priority 0 from now on");
  yielded_ = true;
  const RemoteSm to = *best;
  hand_over(to);
  return to.port_guid;
}

}  // namespace ibsm
