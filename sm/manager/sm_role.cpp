#include "sm/manager/sm_role.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/wire/constants.h"

namespace ibsm {

uint8_t SmRole::advertised_priority() const {
  if (yielded_ && state_ != SmState::master) return 0;
  if (state_ == SmState::master) return std::max(config_.sm_priority, config_.elevated_priority);
  return config_.sm_priority;
}

std::optional<Micros> SmRole::next_deadline() const {
  if (state_ == SmState::standby && !poll_in_flight_) return next_poll_;
  if (state_ == SmState::master && handover_to_ && !handover_probe_) return handover_deadline_;
  return std::nullopt;  // a probe in flight: the dispatcher's timer
}

void SmRole::push(SmRoleAction::Kind kind, std::optional<RemoteSm> peer) {
  SmRoleAction a{kind};
  a.peer = std::move(peer);
  actions_.push_back(std::move(a));
}

void SmRole::enter(SmState to, const char* why) {
  if (to == state_) return;
  const SmState from = state_;
  state_ = to;
  if (to == SmState::master) yielded_ = false;  // master again (a takeover, a HANDOVER): its own priority
  ++counters_.state_changes;
  // OpenSM's wording, so operators' log watchers find it.
  log(log_, LogLevel::info, Subsystem::state, "Entering {} state ({})", to, why);
  if (to != SmState::standby) master_.reset();
  if (to == SmState::standby || to == SmState::not_active) handover_to_.reset();
  SmRoleAction a{SmRoleAction::Kind::entered};
  a.from = from;
  a.to = to;
  a.why = why;
  actions_.push_back(std::move(a));
}

void SmRole::follow(const RemoteSm& master, Micros now) {
  enter(SmState::standby, "another sm is master or outranks this one");
  master_ = master;
  poll_failures_ = 0;
  poll_in_flight_ = false;
  next_poll_ = now;
  push(SmRoleAction::Kind::follow, master);
  log(log_, LogLevel::info, Subsystem::state, "following the sm at port {} (lid {}, priority {}, {})", master.port_guid,
      master.lid, master.info.priority, wire::sm_state_name(master.info.sm_state));
}

// The caller checked that the state was DISCOVERING or MASTER when discovery
// ended; a control packet may have changed it while the SMInfo were read.
bool SmRole::discovered(const wire::SmInfo& self, const std::vector<RemoteSm>& others, Micros now) {
  if (state_ == SmState::discovering) {
    Election e = elect_while_discovering(self, others);
    if (e.verdict == Verdict::follow) {
      follow(*e.peer, now);
      return false;
    }
    enter(SmState::master, others.empty() ? "no other sm" : "no sm outranks this one");
    return true;
  }
  Election e = elect_while_master(self, others);
  if (e.verdict == Verdict::hand_over) {
    hand_over(*e.peer, now);
    return false;
  }
  return true;
}

void SmRole::timers(Micros now) {
  if (state_ == SmState::master) {
    if (handover_to_ && now >= handover_deadline_ && !handover_probe_) {
      // No ACKNOWLEDGE in time: the SM asked is read once more.
      handover_probe_ = true;
      push(SmRoleAction::Kind::probe_handover, handover_to_);
    }
    return;
  }
  if (state_ != SmState::standby) return;
  if (!master_) {
    enter(SmState::discovering, "no master to follow");
    push(SmRoleAction::Kind::heavy_sweep);
    return;
  }
  if (poll_in_flight_ || now < next_poll_) return;
  poll_in_flight_ = true;
  ++counters_.polls_sent;
  next_poll_ = now + config_.poll_interval;
  // One attempt per poll: polling_retry_number counts the misses, and a
  // dispatcher retry would only hide one.
  push(SmRoleAction::Kind::send_poll, master_);
  actions_.back().timeout = std::min(config_.poll_interval, config_.transaction_timeout);
}

void SmRole::poll_answered(const Result<wire::SmInfo>& info) {
  poll_in_flight_ = false;
  if (state_ != SmState::standby || !master_) return;
  std::string why;
  if (!info.ok()) {
    why = info.status().message();
  } else if (info->sm_state != wire::sm_state::master) {
    why = fmt::format("it is {}", wire::sm_state_name(info->sm_state));
  } else {
    poll_failures_ = 0;
    master_->info = *info;
    push(SmRoleAction::Kind::refresh_mirror, master_);  // each answered poll refreshes the mirror
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
  enter(SmState::discovering, "the master stopped answering");
  push(SmRoleAction::Kind::heavy_sweep_now);
}

void SmRole::hand_over(const RemoteSm& to, Micros now) {
  ++counters_.handovers_sent;
  handover_to_ = to;
  handover_deadline_ = now + std::max(2 * config_.poll_interval, Micros{1'000'000});  // at least a second
  log(log_, LogLevel::info, Subsystem::state, "handing over to the sm at port {} (lid {}, priority {}, {})",
      to.port_guid, to.lid, to.info.priority, wire::sm_state_name(to.info.sm_state));
  push(SmRoleAction::Kind::send_handover, to);
}

void SmRole::handover_answered(Guid to, const Status& answer) {
  if (answer.ok() || !handover_to_ || handover_to_->port_guid != to) return;  // now wait for the ACKNOWLEDGE
  log(log_, LogLevel::warn, Subsystem::state, "HANDOVER to port {} not taken ({}): staying master", to,
      answer.message());
  handover_to_.reset();
  yielded_ = false;
  push(SmRoleAction::Kind::heavy_sweep);
}

// OpenSM takes a HANDOVER and becomes master without sending an ACKNOWLEDGE:
// MASTER means the SM asked took the mastership, and this SM follows it;
// anything else, and this SM stays master.
void SmRole::probe_answered(Guid guid, const Result<wire::SmInfo>& info, Micros now) {
  handover_probe_ = false;
  if (!handover_to_ || handover_to_->port_guid != guid || state_ != SmState::master) return;
  RemoteSm to = *handover_to_;
  handover_to_.reset();
  if (info.ok() && info->sm_state == wire::sm_state::master && info->guid == guid) {
    ++counters_.handovers_unacknowledged;
    log(log_, LogLevel::info, Subsystem::state, "the sm at port {} is MASTER without an ACKNOWLEDGE: following it",
        guid);
    to.info = *info;
    follow(to, now);
    return;
  }
  ++counters_.handover_timeouts;
  yielded_ = false;
  log(log_, LogLevel::warn, Subsystem::state, "no ACKNOWLEDGE from port {}: staying master", guid);
  push(SmRoleAction::Kind::heavy_sweep);
}

uint16_t SmRole::handover_received(const std::optional<RemoteSm>& from, Guid sender, Micros) {
  if (state_ == SmState::not_active) return wire::mad_status::invalid_field;
  ++counters_.handovers_received;
  const SmState was = state_;
  if (state_ != SmState::master) enter(SmState::master, "HANDOVER received");
  push(SmRoleAction::Kind::heavy_sweep_now);
  // The answer (sent when the manager's handler returns) goes first; the
  // ACKNOWLEDGE is queued behind it (IBA 14.4.1.2: the new master acknowledges).
  if (from) {
    push(SmRoleAction::Kind::send_acknowledge, from);
    actions_.back().as_state = was;
  } else {
    log(log_, LogLevel::warn, Subsystem::state, "HANDOVER from unknown port {}: no path for the ACKNOWLEDGE", sender);
  }
  return wire::mad_status::ok;
}

uint16_t SmRole::acknowledge_received(const wire::SmInfo& sender, Micros now) {
  if (state_ != SmState::master || !handover_to_ || handover_to_->port_guid != sender.guid)
    return wire::mad_status::invalid_field;
  ++counters_.acknowledges_received;
  RemoteSm to = *handover_to_;
  handover_to_.reset();
  to.info = sender;
  follow(to, now);
  return wire::mad_status::ok;
}

uint16_t SmRole::control(uint32_t modifier, const wire::SmInfo& sender, const std::optional<RemoteSm>& from,
                         Micros now) {
  namespace ctl = wire::sm_info_control;
  const uint16_t ok = wire::mad_status::ok;
  const uint16_t invalid = wire::mad_status::invalid_field;
  switch (modifier) {
    case ctl::handover:
      return handover_received(from, sender.guid, now);
    case ctl::acknowledge:
      return acknowledge_received(sender, now);
    case ctl::disable:
      return disable("DISABLE received").ok() ? ok : invalid;
    case ctl::standby:
      return enable("STANDBY received").ok() ? ok : invalid;
    case ctl::discover:
      if (state_ != SmState::standby && state_ != SmState::not_active) return invalid;
      enter(SmState::discovering, "DISCOVER received");
      push(SmRoleAction::Kind::heavy_sweep_now);
      return ok;
    default:
      return invalid;
  }
}

Status SmRole::disable(const char* why) {
  if (state_ == SmState::master)
    return failed_precondition_error("this sm is MASTER: a master does not accept DISABLE (IBA 14.4.1), hand over first");
  if (state_ == SmState::not_active) return {};
  enter(SmState::not_active, why);
  return {};
}

Status SmRole::enable(const char* why) {
  if (state_ != SmState::not_active)
    return failed_precondition_error(fmt::format("this sm is {}, not NOT ACTIVE", state_));
  // Back in the game: discovery finds the master to follow.
  enter(SmState::discovering, why);
  push(SmRoleAction::Kind::heavy_sweep_now);
  return {};
}

Result<Guid> SmRole::request_handover(const std::vector<RemoteSm>& others, Guid self, Micros now) {
  if (state_ != SmState::master) return failed_precondition_error(fmt::format("this sm is {}, not MASTER", state_));
  if (handover_to_)
    return failed_precondition_error(fmt::format("a handover to port {} is under way", handover_to_->port_guid));
  const RemoteSm* best = nullptr;
  for (const RemoteSm& o : others)
    if (o.info.sm_state == wire::sm_state::standby && (!best || outranks(o.info, best->info))) best = &o;
  if (!best) return not_found_error("no STANDBY sm known to hand over to");
  if (!outranks(best->info.priority, best->port_guid, 0, self))
    return failed_precondition_error(fmt::format(
        "the sm at port {} (priority {}) would hand the mastership back to this one (priority 0, lower guid)",
        best->port_guid, best->info.priority));
  log(log_, LogLevel::info, Subsystem::state, "handover requested by the operator: advertising priority 0 from now on");
  yielded_ = true;
  const RemoteSm to = *best;
  hand_over(to, now);
  return to.port_guid;
}

void SmRole::reconfigure(const SmRoleConfig& config) {
  config_ = config;
  yielded_ = false;  // the operator's priority, as configured, counts again
}

}  // namespace ibsm
