#include "sm/metrics/sm_metrics.h"

#include <array>
#include <cassert>
#include <map>

#include "mad/wire/sm_info.h"
#include "sm/manager/subnet_manager.h"
#include "sm/metrics/mad_names.h"
#include "sm/metrics/perf_metrics.h"

namespace ibsm::metrics {
namespace {

double seconds(Micros t) { return static_cast<double>(t) / 1e6; }

// SMInfo:SMState (IBA 14.2.5.13), as OpenSM names them in its log.
constexpr std::array<std::pair<SmState, const char*>, 4> kSmStates{{
    {SmState::not_active, "not_active"},
    {SmState::discovering, "discovering"},
    {SmState::standby, "standby"},
    {SmState::master, "master"},
}};

void collect_state(const SubnetManager& sm, MetricsRegistry& out) {
  for (const auto& [value, name] : kSmStates)
    out.gauge("ibsm_sm_state", "1 for the SM state this SM is in (IBA 14.4.1), 0 for the others.", {{"state", name}},
              sm.state() == value ? 1 : 0);
  out.gauge("ibsm_sm_state_number", "The SM state as SMInfo:SMState carries it: 0 not active, 1 discovering, "
            "2 standby, 3 master.", {}, to_wire(sm.state()));
  out.gauge("ibsm_sm_priority", "The priority this SM advertises in SMInfo.", {}, sm.sm_info().priority);
  out.gauge("ibsm_subnet_up", "1 when the last heavy sweep brought the subnet up.", {}, sm.subnet_up() ? 1 : 0);
  const ManagerCounters& c = sm.counters();
  out.counter("ibsm_sm_takeovers_total", "Standby to master because the master stopped answering.", {},
              as_double(c.takeovers));
  out.counter("ibsm_sm_handovers_total", "Mastership handed over (sent) or received by HANDOVER.",
              {{"direction", "sent"}}, as_double(c.handovers_sent));
  out.counter("ibsm_sm_handovers_total", "Mastership handed over (sent) or received by HANDOVER.",
              {{"direction", "received"}}, as_double(c.handovers_received));
  out.counter("ibsm_sm_state_changes_total", "SM state changes.", {}, as_double(c.state_changes));
}

void collect_sweeps(const SubnetManager& sm, Micros now, MetricsRegistry& out) {
  const ManagerCounters& c = sm.counters();
  const std::map<SweepKind, uint64_t> counts{{SweepKind::heavy, c.heavy_sweeps},
                                             {SweepKind::light, c.light_sweeps},
                                             {SweepKind::discovery, c.discovery_sweeps},
                                             {SweepKind::incremental, c.incremental_sweeps}};
  for (SweepKind kind : kSweepKinds) {
    const Labels labels{{"kind", sweep_kind_name(kind)}};
    const SweepKindStats& s = sm.sweep_stats(kind);
    const auto count = counts.find(kind);
    assert(count != counts.end());  // every kind is counted above
    out.counter("ibsm_sweeps_total",
                "Sweeps by kind: heavy (configured the subnet), light (checked it), discovery (stopped after "
                "the election: another SM is master), incremental (configured the subnet after reading only the region "
                "that changed).",
                labels, as_double(count == counts.end() ? 0 : count->second));
    out.histogram("ibsm_sweep_duration_seconds", "How long sweeps took, by kind.", labels, s.duration);
    out.counter("ibsm_sweep_mads_total", "MADs the sweeps sent, by kind.", labels, as_double(s.mads_total));
    out.gauge("ibsm_sweep_last_mads", "MADs the last sweep of this kind sent.", labels, as_double(s.last_mads));
    out.gauge("ibsm_sweep_last_duration_seconds", "How long the last sweep of this kind took.", labels,
              seconds(s.last_duration));
  }
  if (auto end = sm.last_sweep_end())
    out.gauge("ibsm_last_sweep_age_seconds", "Time since the last sweep of any kind ended.", {}, seconds(now - *end));
}

void collect_mads(const SubnetManager& sm, MetricsRegistry& out) {
  const DispatcherStats& d = sm.dispatcher().stats();
  auto by_kind = [&](const char* name, const char* help, const std::map<uint32_t, uint64_t>& counts) {
    for (const auto& [key, n] : counts) {
      const uint8_t mgmt_class = DispatcherStats::kind_class(key);
      out.counter(name, help,
                  {{"mgmt_class", mgmt_class_label(mgmt_class)},
                   {"method", method_label(DispatcherStats::kind_method(key))},
                   {"attribute", attribute_label(mgmt_class, DispatcherStats::kind_attr(key))}},
                  as_double(n));
    }
  };
  by_kind("ibsm_mad_requests_sent_total", "Requests the SM sent, resends included, by class, method and attribute.",
          d.sent_by_kind);
  by_kind("ibsm_mad_retries_total", "Requests resent after a timeout, by class, method and attribute.",
          d.retries_by_kind);
  by_kind("ibsm_mad_timeouts_total", "Requests that got no answer after every attempt, by class, method and attribute.",
          d.timeouts_by_kind);
  out.counter("ibsm_mads_sent_total", "Every MAD the SM's port sent: requests, resends and answers.", {},
              as_double(d.sent));
  out.counter("ibsm_mad_responses_total", "Responses matched to a request of the SM.", {}, as_double(d.responses));
  out.counter("ibsm_mad_responses_unmatched_total", "Responses to no request in flight (late or duplicate).", {},
              as_double(d.unmatched));
  out.counter("ibsm_mad_send_errors_total", "MADs the transport refused to send.", {}, as_double(d.send_errors));
  const char* malformed_help = "Received MADs dropped as unreadable, by who dropped them.";
  out.counter("ibsm_mads_malformed_dropped_total", malformed_help, {{"agent", "dispatcher"}}, as_double(d.malformed));
  out.counter("ibsm_mads_malformed_dropped_total", malformed_help, {{"agent", "sa"}},
              as_double(sm.sa().counters().malformed_dropped));
}

void collect_sa(const SubnetManager& sm, MetricsRegistry& out) {
  const sa::SaAgentCounters& c = sm.sa().counters();
  for (const auto& [kind, n] : c.answers_by_kind)
    out.counter("ibsm_sa_requests_total", "SA requests answered, by attribute, method and the answer's status.",
                {{"attribute", attribute_label(wire::mgmt_class::subn_adm, kind.attribute)},
                 {"method", method_label(kind.method)},
                 {"status", sa_status_label(kind.status)}},
                as_double(n));
  out.histogram("ibsm_sa_request_latency_seconds",
                "From an SA request's hand-over to the SA to its answer's first MAD.", {}, sm.sa_latency());
  out.counter("ibsm_sa_mads_received_total", "SA-class MADs the SA read.", {}, as_double(c.received));
  out.counter("ibsm_sa_rmpp_answers_total", "SA answers sent as RMPP transfers.", {}, as_double(c.rmpp_answers));
  out.counter("ibsm_sa_duplicate_requests_total", "Resends of a request whose answer was still being sent.", {},
              as_double(c.duplicates));
}

void collect_traps(const SubnetManager& sm, MetricsRegistry& out) {
  const SmAgentCounters& c = sm.sm_agent().counters();
  const char* help = "Traps received, by generic trap number (IBA 14.2.5.1); \"other\": vendor or unreadable.";
  uint64_t numbered = 0;
  for (const auto& [number, n] : c.traps_by_number) {
    out.counter("ibsm_traps_received_total", help, {{"number", std::to_string(number)}}, as_double(n));
    numbered += n;
  }
  out.counter("ibsm_traps_received_total", help, {{"number", "other"}}, as_double(c.traps - numbered));
  const TrapFilterCounters& f = sm.trap_filter().counters();
  out.counter("ibsm_traps_repeated_total", "Traps identical to one from the same LID just before (counted, not logged).",
              {}, as_double(f.repeats));
  out.counter("ibsm_traps_ignored_total", "Repeated traps past the limit: ignored as noise (no sweep, no report).", {},
              as_double(f.ignored));
  out.counter("ibsm_sweep_requests_coalesced_total", "Traps that asked for a heavy sweep while one was due: merged into it.",
              {}, as_double(sm.counters().sweep_requests_coalesced));
  out.gauge("ibsm_ports_quarantined", "Ports the SM holds down because their link flapped.", {},
            as_double(sm.quarantine().held().size()));
  out.counter("ibsm_ports_quarantined_total", "Ports quarantined since the start.", {},
              as_double(sm.quarantine().quarantined_total()));
}

// From the subnet the last sweep configured.
void collect_subnet(const SubnetManager& sm, MetricsRegistry& out) {
  const auto& subnet = sm.subnet();
  if (!subnet) return;
  const Fabric& f = subnet->fabric;
  std::map<PortState, uint64_t> ports{{PortState::down, 0}, {PortState::init, 0}, {PortState::armed, 0},
                                      {PortState::active, 0}};
  uint64_t switches = 0, others = 0;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    n.is_switch() ? ++switches : ++others;
    for (uint8_t p = 1; p <= n.num_ports; ++p) ++ports[n.port(p).state];
  }
  const char* state_names[] = {"no_change", "down", "init", "armed", "active"};
  for (const auto& [state, n] : ports)
    out.gauge("ibsm_ports", "Physical ports by state (IBA 14.2.5.6 PortState), as the last heavy sweep left them.",
              {{"state", state_names[static_cast<size_t>(state)]}}, as_double(n));
  out.gauge("ibsm_nodes", "Nodes the last heavy sweep configured, by type.", {{"type", "switch"}},
            as_double(switches));
  out.gauge("ibsm_nodes", "Nodes the last heavy sweep configured, by type.", {{"type", "other"}}, as_double(others));
}

void collect_routing(const SubnetManager& sm, MetricsRegistry& out) {
  const SweepReport* last = sm.last_sweep();
  if (!last) return;
  const SweepRoutes& routes = last->routes;
  out.gauge("ibsm_routing_engine_info", "The routing engine the last heavy sweep used (value 1).",
            {{"engine", routes.engine}}, 1);
  const char* verdict = "not_checked";
  if (routes.route_check && routes.route_check->cdg) verdict = routes.route_check->has_cycle() ? "cycle" : "acyclic";
  for (const char* v : {"acyclic", "cycle", "not_checked"})
    out.gauge("ibsm_routing_deadlock_verdict",
              "The channel dependency check of the routed tables: 1 for the verdict (acyclic, cycle, not_checked).",
              {{"verdict", v}}, std::string_view(v) == verdict ? 1 : 0);
  out.counter("ibsm_routing_credit_loops_total",
              "Routings installed although their channel dependency graph has a cycle (logged at error level).", {},
              as_double(routes.credit_loops));
  if (!routes.route_check) return;
  const routing::CheckSummary& p = routes.route_check->pairs;
  out.gauge("ibsm_routing_check_pairs", "CA-to-CA pairs the route check traced.", {}, as_double(p.pairs));
  out.gauge("ibsm_routing_check_delivered_pairs", "Pairs whose route reached their destination.", {},
            as_double(p.delivered));
  out.gauge("ibsm_routing_check_max_hops", "Cables crossed by the longest delivered route.", {},
            as_double(p.max_hops));
  out.gauge("ibsm_routing_check_max_link_routes", "Routes over the most loaded switch-to-switch link direction.", {},
            as_double(p.max_link_routes));
  out.gauge("ibsm_routing_check_ok", "1 when every pair is delivered and no promised deadlock freedom is broken.", {},
            routes.route_check->ok() ? 1 : 0);
}

}  // namespace

void collect_sm_metrics(const SubnetManager& sm, Micros now, MetricsRegistry& out) {
  collect_state(sm, out);
  collect_sweeps(sm, now, out);
  collect_mads(sm, out);
  collect_sa(sm, out);
  collect_traps(sm, out);
  collect_subnet(sm, out);
  collect_routing(sm, out);
  collect_perf_metrics(sm.perf(), out);
}

}  // namespace ibsm::metrics
