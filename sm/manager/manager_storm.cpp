// The SubnetManager in a storm: repeated traps (trap_filter.h), sweep
// requests merged into the one due, and flapping links held down
// (flap_quarantine.h).
#include <fmt/format.h>

#include "sm/manager/port_hold.h"
#include "sm/manager/subnet_manager.h"

namespace ibsm {

SmAgent::TrapOutcome SubnetManager::filter_trap(const MadPacket& trap, const wire::Notice& notice) {
  const TrapVerdict v = traps_.note(trap.address.lid, notice, clock_.now());
  if (v.milestone())
    log(log_, LogLevel::info, Subsystem::state, "trap {} from lid {}: {} identical ones within {} s of each other{}",
        notice.trap_number, trap.address.lid, v.earlier + 1, TrapFilterOptions{}.window / 1'000'000,
        v.act ? "" : "; ignored as noise (no sweep, no report) until they stop");
  return SmAgent::TrapOutcome{v.first(), v.act, v.act};
}

void SubnetManager::poll_storms(Micros now, uint64_t trap_requests) {
  if (!is_master()) return;
  // Each trap beyond the first, and the first too when a sweep is already
  // due, joins the sweep due: one sweep follows however many came.
  scheduler_.traps_arrived(trap_requests);
  // A series of ignored traps that ended: what they announced is looked at once.
  if (traps_.take_owed_sweep(now)) {
    log(log_, LogLevel::info, Subsystem::sweep, "a series of ignored traps ended: heavy sweep");
    want_heavy_sweep();
  }
  for (const QuarantinedPort& q : quarantine_.take_expired(now))
    set_phys_state(subnet_.get(), q.port.node, q.port.port, PhysState::polling, "its quarantine hold ended");
}

// After a heavy sweep that configured the subnet: its links against the
// last sweep's, the ports to hold down, and every held port in the report.
void SubnetManager::quarantine_after(SweepReport& report, Micros now) {
  if (!report.subnet) return;
  for (const PortKey& k : quarantine_.observe(subnet_.get(), *report.subnet, now)) {
    const auto q = quarantine_.held().find(k);
    if (q != quarantine_.held().end() && q->second.since == now) {
      log(log_, LogLevel::warn, Subsystem::sweep,
          "{} quarantined: its link to {} went down {} times within {} s; disabled (PortPhysicalState Disabled) {}",
          describe_port(k, q->second.description), describe_port(q->second.peer, q->second.peer_description),
          q->second.losses, config_.flap_quarantine_window_s,
          q->second.until ? fmt::format("for {} s or until `ibsm ctl release`", config_.flap_quarantine_hold_s)
                          : std::string("until `ibsm ctl release`"));
      set_phys_state(report.subnet.get(), k.node, k.port, PhysState::disabled, "quarantined");
    } else {
      set_phys_state(report.subnet.get(), k.node, k.port, PhysState::disabled, "quarantined, and found up again");
    }
  }
  for (SweepProblem& p : quarantine_.problems()) report.problems.push_back(std::move(p));
}

// The port's switch is found in `s` (the sweep just done, or the last one).
void SubnetManager::set_phys_state(const SubnetSnapshot* s, Guid node, PortNum port, PhysState phys,
                                   const char* why) {
  std::optional<NodeIndex> n = s ? s->fabric.find_by_node_guid(node) : std::nullopt;
  if (!n || n->value >= s->paths.size()) {
    log(log_, LogLevel::warn, Subsystem::sweep, "port {} of {} ({}): its switch is not in the subnet; not set", port,
        node, why);
    return;
  }
  const bool down = phys == PhysState::disabled;
  set_port_phys_state(dispatcher_, s->paths[n->value], port, phys, [this, node, port, down, why](Status st) {
    if (!st.ok()) {
      log(log_, LogLevel::warn, Subsystem::sweep, "port {} of {} ({}): PortPhysicalState {} not set: {}", port, node,
          why, down ? "Disabled" : "Polling", st.message());
      return;
    }
    log(log_, LogLevel::info, Subsystem::sweep, "port {} of {} ({}): PortPhysicalState {}", port, node, why,
        down ? "Disabled" : "Polling");
    // The link is down now, or trains again: route and configure what is.
    if (is_master()) want_heavy_sweep();
  });
  dispatcher_.poll();
}

Status SubnetManager::release_quarantine(Guid node, PortNum port) {
  if (!is_master())
    return failed_precondition_error(fmt::format("this sm is {}: only the master holds ports", state()));
  auto q = quarantine_.release(PortKey{node, port});
  if (!q.ok()) return q.status();
  log(log_, LogLevel::info, Subsystem::sweep, "{} released by the operator", describe_port(q->port, q->description));
  set_phys_state(subnet_.get(), node, port, PhysState::polling, "released");
  return {};
}

}  // namespace ibsm
