// The SM role: the state machine of IBA 14.4.1 (NOT ACTIVE, DISCOVERING,
// STANDBY, MASTER) that the SubnetManager runs, on its own. It owns the
// state and every transition: the election after discovery, the standby's
// polling of the master (a poll every sminfo_polling_timeout, takeover after
// polling_retry_number misses), handover by HANDOVER and ACKNOWLEDGE (with a
// deadline, and a probe of the SM asked when no ACKNOWLEDGE came), and the
// control packets of an SMInfo Set or the operator (DISABLE, STANDBY,
// DISCOVER).
//
// Events in, actions out: it sends no MAD and touches no agent. Each event
// queues what the manager must carry out (send a poll, a HANDOVER, an
// ACKNOWLEDGE; a heavy sweep; what a state change means for the agents);
// take_actions() hands them over in order. So a test drives it alone, in
// virtual time, without a fabric.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/sm_info.h"
#include "sm/manager/election.h"

namespace ibsm {

// SMInfo:SMState (IBA 14.2.5.13); the values are the wire's.
enum class SmState : uint8_t { not_active = 0, discovering = 1, standby = 2, master = 3 };
constexpr uint8_t to_wire(SmState s) { return static_cast<uint8_t>(s); }
// "NOT ACTIVE", "DISCOVERING", "STANDBY", "MASTER", as wire::sm_state_name
// (OpenSM's log and sminfo say them so; operators' log watchers grep them).
inline const char* sm_state_name(SmState s) { return wire::sm_state_name(to_wire(s)); }

// What the role needs of the config.
struct SmRoleConfig {
  Micros poll_interval = 0;         // sminfo_polling_timeout
  Micros transaction_timeout = 0;   // a poll waits no longer than this, nor than poll_interval
  uint32_t polling_retry_number = 4;
  uint8_t sm_priority = 0;
  uint8_t elevated_priority = 0;    // advertised while MASTER, when higher
};

// The role's part of ManagerCounters.
struct SmRoleCounters {
  uint64_t polls_sent = 0;          // the standby's SMInfo polls of the master
  uint64_t polls_failed = 0;        // unanswered, or answered by an SM no longer MASTER
  uint64_t takeovers = 0;           // standby -> master because the master stopped answering
  uint64_t handovers_sent = 0;      // HANDOVERs this SM sent (as the master yielding)
  uint64_t handovers_received = 0;  // HANDOVERs accepted (mastership received)
  uint64_t acknowledges_received = 0;
  uint64_t handover_timeouts = 0;   // a HANDOVER that got no ACKNOWLEDGE in time, and no mastership taken
  uint64_t handovers_unacknowledged = 0;  // taken without an ACKNOWLEDGE (OpenSM sends none)
  uint64_t state_changes = 0;
};

struct SmRoleAction {
  enum class Kind : uint8_t {
    entered,           // from -> to, for `why`: the agents, the SA, the listener
    follow,            // STANDBY behind `peer` (the agent answers its requests)
    send_poll,         // SMInfo Get to `peer`, one attempt within `timeout`; answer to poll_answered()
    refresh_mirror,    // `peer` answered a poll: mirror its SA again
    send_handover,     // SMInfo Set HANDOVER to `peer`; answer to handover_answered()
    probe_handover,    // SMInfo Get to `peer` (no ACKNOWLEDGE came); answer to probe_answered()
    send_acknowledge,  // SMInfo Set ACKNOWLEDGE to `peer`, saying `as_state`
    heavy_sweep,       // a heavy sweep at the next poll (a pending retry brought forward)
    heavy_sweep_now,   // ... and DISCOVERING's wait before a retry cut short too
  };
  Kind kind;
  SmState from = SmState::discovering;  // entered
  SmState to = SmState::discovering;    // entered
  std::string why;                      // entered
  std::optional<RemoteSm> peer;
  SmState as_state = SmState::discovering;  // send_acknowledge
  Micros timeout = 0;                       // send_poll
};

class SmRole {
 public:
  SmRole(const SmRoleConfig& config, LogSink& log) : config_(config), log_(log) {}

  SmState state() const { return state_; }
  bool is_master() const { return state_ == SmState::master; }
  // STANDBY: the SM polled.
  const std::optional<RemoteSm>& master() const { return master_; }
  // MASTER handing over: the SM asked (no sweeps meanwhile).
  const std::optional<RemoteSm>& handover_to() const { return handover_to_; }
  bool yielded() const { return yielded_; }
  // The priority SMInfo advertises: elevated while MASTER, 0 after yielding.
  uint8_t advertised_priority() const;
  const SmRoleCounters& counters() const { return counters_; }
  // When timers() next has something to do (nullopt: nothing of the role's).
  std::optional<Micros> next_deadline() const;
  // Everything the events since the last call asked for, oldest first.
  std::vector<SmRoleAction> take_actions() { return std::exchange(actions_, {}); }

  // Discovery is done and `others` answered SMInfo (IBA 14.4.1): DISCOVERING
  // follows or becomes MASTER; MASTER may hand over. True: the sweep goes
  // on, as master.
  bool discovered(const wire::SmInfo& self, const std::vector<RemoteSm>& others, Micros now);
  // The master a standby gave up on: its SMInfo is read once only at the
  // discovery that follows. Taken once.
  Guid take_presumed_dead() { return std::exchange(presumed_dead_, Guid{}); }
  // The time is `now`: STANDBY polls the master, MASTER handing over probes
  // the SM asked once its ACKNOWLEDGE is late.
  void timers(Micros now);
  // The answer to a send_poll: the master's SMInfo, or why there is none.
  void poll_answered(const Result<wire::SmInfo>& info);
  // The answer to a send_handover to `to`; failed: not taken, stay MASTER.
  void handover_answered(Guid to, const Status& answer);
  // The answer to a probe_handover of `to`.
  void probe_answered(Guid to, const Result<wire::SmInfo>& info, Micros now);
  // An SMInfo Set with a control modifier (wire::sm_info_control) from
  // `sender`; `from` is that SM as discovery found it, if it did (the path
  // for an ACKNOWLEDGE). The MAD status to answer with.
  uint16_t control(uint32_t modifier, const wire::SmInfo& sender, const std::optional<RemoteSm>& from, Micros now);
  // DISABLE and STANDBY, from an SMInfo Set or the operator.
  Status disable(const char* why);
  Status enable(const char* why);
  // The operator's handover (MASTER only) to the best STANDBY of `others`;
  // from then on this SM advertises priority 0. The port GUID asked.
  Result<Guid> request_handover(const std::vector<RemoteSm>& others, Guid self, Micros now);
  // A hot reload: the operator's priority counts again.
  void reconfigure(const SmRoleConfig& config);

 private:
  void enter(SmState to, const char* why);
  void follow(const RemoteSm& master, Micros now);
  void hand_over(const RemoteSm& to, Micros now);
  void push(SmRoleAction::Kind kind, std::optional<RemoteSm> peer = std::nullopt);
  uint16_t handover_received(const std::optional<RemoteSm>& from, Guid sender, Micros now);
  uint16_t acknowledge_received(const wire::SmInfo& sender, Micros now);

  SmRoleConfig config_;
  LogSink& log_;
  SmState state_ = SmState::discovering;
  std::optional<RemoteSm> master_;  // STANDBY: the SM polled
  Guid presumed_dead_;              // the master this SM just gave up on
  bool yielded_ = false;            // request_handover(): advertise priority 0
  // STANDBY: the polling of the master.
  Micros next_poll_ = 0;
  bool poll_in_flight_ = false;
  uint32_t poll_failures_ = 0;
  // MASTER handing over: the SM asked, and until when its ACKNOWLEDGE may come.
  std::optional<RemoteSm> handover_to_;
  Micros handover_deadline_ = 0;
  bool handover_probe_ = false;  // reading the SM asked, after no ACKNOWLEDGE came
  SmRoleCounters counters_;
  std::vector<SmRoleAction> actions_;
};

}  // namespace ibsm

// fmt prints the name (fmt 9's format_as does not take an enum to a string).
template <> struct fmt::formatter<ibsm::SmState> : fmt::formatter<std::string_view> {
  template <typename Ctx> auto format(ibsm::SmState s, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(ibsm::sm_state_name(s), ctx);
  }
};
