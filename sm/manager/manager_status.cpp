#include "sm/manager/manager_status.h"

#include <iterator>

#include "mad/base/json.h"
#include "mad/wire/sm_info.h"

namespace ibsm {
namespace {

SmPeerStatus peer(const RemoteSm& r) { return {r.port_guid, r.lid, r.info.priority, r.info.sm_state, r.info.act_count}; }

// sminfo's names for SMInfo:SMState (infiniband-diags sminfo.c).
const char* sminfo_state_name(uint8_t s) {
  switch (s) {
    case wire::sm_state::not_active: return "SMINFO_NOTACT";
    case wire::sm_state::discovering: return "SMINFO_DISCOVER";
    case wire::sm_state::standby: return "SMINFO_STANDBY";
    case wire::sm_state::master: return "SMINFO_MASTER";
    default: return "UNKNOWN";
  }
}

double seconds(Micros us) { return static_cast<double>(us) / 1e6; }

void peer_json(fmt::memory_buffer& b, const SmPeerStatus& p) {
  fmt::format_to(std::back_inserter(b),
                 "{{\"port_guid\": \"{}\", \"lid\": {}, \"priority\": {}, \"state\": \"{}\", \"act_count\": {}}}",
                 p.port_guid, p.lid, p.priority, wire::sm_state_name(p.state), p.act_count);
}

void self_json(fmt::memory_buffer& b, const ManagerStatus& s) {
  auto it = std::back_inserter(b);
  fmt::format_to(it,
                 "\"state\": \"{}\", \"priority\": {}, \"advertised_priority\": {}, \"port_guid\": \"{}\", "
                 "\"lid\": {}, \"act_count\": {}, \"master\": ",
                 sm_state_name(s.state), s.priority, s.advertised_priority, s.port_guid, s.lid, s.act_count);
  if (s.master) {
    peer_json(b, *s.master);
  } else {
    fmt::format_to(it, "null");
  }
  fmt::format_to(it, ", \"other_sms\": [");
  for (size_t i = 0; i < s.other_sms.size(); ++i) {
    if (i) fmt::format_to(it, ", ");
    peer_json(b, s.other_sms[i]);
  }
  fmt::format_to(it, "]");
}

}  // namespace

ManagerStatus manager_status(const SubnetManager& sm, Lid own_lid, Micros now) {
  ManagerStatus s;
  const wire::SmInfo info = sm.sm_info();
  s.state = sm.state();
  s.priority = sm.config().sm_priority;
  s.advertised_priority = info.priority;
  s.port_guid = info.guid;
  s.act_count = info.act_count;
  s.lid = sm.own_lid().value != 0 ? sm.own_lid() : own_lid;
  if (sm.master()) s.master = peer(*sm.master());
  for (const RemoteSm& r : sm.other_sms()) s.other_sms.push_back(peer(r));
  s.last_sweep = sm.last_sweep_record();
  if (const SweepReport* r = sm.last_sweep(); r && r->subnet) {
    const Fabric& f = r->subnet->fabric;
    s.configured = true;
    s.subnet_up = sm.subnet_up();
    s.nodes = f.node_count();
    s.switches = f.switch_count();
    s.cas = f.ca_count();
    s.links = f.links().size();
    s.lid_top = r->lids.top.value;
    s.sm_lid = r->sm_lid;
    s.routing_engine = r->routes.engine;
    s.route_check = r->routes.check;
    s.route_check_ok = r->routes.check_ok;
    s.problems = r->problems;
  }
  s.last_error = sm.last_error();
  s.counters = sm.counters();
  s.traps = sm.sm_agent().counters().traps;
  s.trap_filter = sm.trap_filter().counters();
  s.ports_quarantined = sm.quarantine().held().size();
  const DispatcherStats& d = sm.dispatcher().stats();
  s.mads_sent = d.sent;
  s.mads_retried = d.retries;
  s.mads_timed_out = d.timeouts;
  s.taken_at = now;
  return s;
}

std::string status_json(const ManagerStatus& s, Micros now) {
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{");
  self_json(b, s);
  const SweepRecord& w = s.last_sweep;
  fmt::format_to(it, ", \"last_sweep\": ");
  if (w.started == 0 && w.duration == 0 && std::string_view(w.kind) == "none") {
    fmt::format_to(it, "null");
  } else {
    fmt::format_to(it, "{{\"kind\": \"{}\", \"seconds_ago\": {:.3f}, \"duration_s\": {:.6f}, \"mads\": {}, \"changed\": {}}}",
                   w.kind, seconds(now - w.started), seconds(w.duration), w.mads, w.changed);
  }
  fmt::format_to(it, ", \"subnet\": ");
  if (!s.configured) {
    fmt::format_to(it, "null");
  } else {
    fmt::format_to(it,
                   "{{\"up\": {}, \"nodes\": {}, \"switches\": {}, \"cas\": {}, \"links\": {}, \"lid_top\": {}, "
                   "\"sm_lid\": {}, \"routing_engine\": ",
                   s.subnet_up, s.nodes, s.switches, s.cas, s.links, s.lid_top, s.sm_lid);
    append_json_string(b, s.routing_engine);
    fmt::format_to(it, ", \"route_check\": ");
    append_json_string(b, s.route_check);
    fmt::format_to(it, ", \"route_check_ok\": {}}}", s.route_check_ok);
  }
  fmt::format_to(it, ", \"problems\": [");
  for (size_t i = 0; i < s.problems.size(); ++i) {
    const SweepProblem& p = s.problems[i];
    fmt::format_to(it, "{}{{\"kind\": \"{}\", \"node\": \"{}\", \"port\": ", i ? ", " : "",
                   sweep_problem_kind_name(p.kind), p.node);
    if (p.port) {
      fmt::format_to(it, "{}", p.port->value);
    } else {
      fmt::format_to(it, "null");
    }
    fmt::format_to(it, ", \"text\": ");
    append_json_string(b, p.text);
    fmt::format_to(it, "}}");
  }
  fmt::format_to(it, "], \"last_error\": ");
  append_json_string(b, s.last_error);
  const ManagerCounters& c = s.counters;
  fmt::format_to(it,
                 ", \"counters\": {{\"heavy_sweeps\": {}, \"incremental_sweeps\": {}, \"light_sweeps\": {}, \"discovery_sweeps\": {}, "
                 "\"state_changes\": {}, \"polls_sent\": {}, \"polls_failed\": {}, \"takeovers\": {}, "
                 "\"handovers_sent\": {}, \"handovers_received\": {}, \"mads_sent\": {}, \"mads_retried\": {}, "
                 "\"mads_timed_out\": {}, \"traps\": {}, \"traps_repeated\": {}, \"traps_ignored\": {}, "
                 "\"sweep_requests_coalesced\": {}, \"ports_quarantined\": {}}}, \"age_s\": {:.3f}}}\n",
                 c.heavy_sweeps, c.incremental_sweeps, c.light_sweeps, c.discovery_sweeps, c.state_changes, c.polls_sent, c.polls_failed,
                 c.takeovers, c.handovers_sent, c.handovers_received, s.mads_sent, s.mads_retried, s.mads_timed_out,
                 s.traps, s.trap_filter.repeats, s.trap_filter.ignored, c.sweep_requests_coalesced,
                 s.ports_quarantined, seconds(now - s.taken_at));
  return fmt::to_string(b);
}

std::string status_text(const ManagerStatus& s, Micros now) {
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  // OpenSM's console `status` leads with the state and the sweep counts.
  fmt::format_to(it, "SM state        : {}\n", sm_state_name(s.state));
  fmt::format_to(it, "SM priority     : {} (advertised {})\n", s.priority, s.advertised_priority);
  fmt::format_to(it, "SM port         : guid {} lid {}\n", s.port_guid, s.lid);
  if (s.master) fmt::format_to(it, "Master SM       : guid {} lid {} priority {}\n", s.master->port_guid, s.master->lid, s.master->priority);
  for (const SmPeerStatus& p : s.other_sms)
    fmt::format_to(it, "Other SM        : guid {} lid {} priority {} {}\n", p.port_guid, p.lid, p.priority,
                   wire::sm_state_name(p.state));
  const SweepRecord& w = s.last_sweep;
  if (std::string_view(w.kind) != "none")
    fmt::format_to(it, "Last sweep      : {} {:.1f} s ago, took {:.3f} s, {} mads{}\n", w.kind, seconds(now - w.started),
                   seconds(w.duration), w.mads, w.changed ? ", found a change" : "");
  if (s.configured) {
    fmt::format_to(it, "Subnet          : {}: {} nodes ({} switches, {} CAs), {} links, lids 1..{}, sm lid {}\n",
                   s.subnet_up ? "UP" : "NOT UP", s.nodes, s.switches, s.cas, s.links, s.lid_top, s.sm_lid);
    fmt::format_to(it, "Routing engine  : {}\n", s.routing_engine);
    if (!s.route_check.empty()) fmt::format_to(it, "Route check     : {}\n", s.route_check);
  }
  const ManagerCounters& c = s.counters;
  fmt::format_to(it, "Sweeps          : {} heavy, {} incremental, {} light, {} discovery only\n", c.heavy_sweeps,
                 c.incremental_sweeps, c.light_sweeps, c.discovery_sweeps);
  fmt::format_to(it, "MADs            : {} sent, {} retried, {} timed out\n", s.mads_sent, s.mads_retried,
                 s.mads_timed_out);
  fmt::format_to(it, "Failover        : {} takeovers, {} handovers sent, {} received\n", c.takeovers, c.handovers_sent,
                 c.handovers_received);
  fmt::format_to(it, "Traps           : {} received, {} repeated, {} ignored as noise; {} sweep requests coalesced\n",
                 s.traps, s.trap_filter.repeats, s.trap_filter.ignored, c.sweep_requests_coalesced);
  if (s.ports_quarantined > 0) fmt::format_to(it, "Quarantined     : {} ports held down\n", s.ports_quarantined);
  if (!s.last_error.empty()) fmt::format_to(it, "Last error      : {}\n", s.last_error);
  for (const SweepProblem& p : s.problems) fmt::format_to(it, "Problem         : {}\n", p.text);
  return fmt::to_string(b);
}

std::string sminfo_json(const ManagerStatus& s) {
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), "{{");
  self_json(b, s);
  fmt::format_to(std::back_inserter(b), "}}\n");
  return fmt::to_string(b);
}

std::string sminfo_text(const ManagerStatus& s) {
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  auto line = [&](Lid lid, Guid guid, uint32_t act, uint8_t prio, uint8_t state, const char* who) {
    fmt::format_to(it, "sminfo: sm lid {} sm guid {}, activity count {} priority {} state {} {}{}\n", lid, guid, act,
                   prio, state, sminfo_state_name(state), who);
  };
  line(s.lid, s.port_guid, s.act_count, s.advertised_priority, to_wire(s.state), " (this sm)");
  for (const SmPeerStatus& p : s.other_sms) {
    const bool followed = s.master && s.master->port_guid == p.port_guid;
    line(p.lid, p.port_guid, p.act_count, p.priority, p.state, followed ? " (followed)" : "");
  }
  if (s.master) {
    bool listed = false;
    for (const SmPeerStatus& p : s.other_sms) listed = listed || p.port_guid == s.master->port_guid;
    if (!listed)
      line(s.master->lid, s.master->port_guid, s.master->act_count, s.master->priority, s.master->state, " (followed)");
  }
  return fmt::to_string(b);
}

}  // namespace ibsm
