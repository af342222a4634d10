// The SM state machine of IBA 14.4.1 alone (sm_role.h): events in virtual
// time, the actions it asks of the manager checked exactly. No fabric.
#include "sm/manager/sm_role.h"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "mad/wire/constants.h"

#include "tests/sm/manager/remote_sm_fixtures.h"

namespace ibsm {
// Named, not anonymous: in a unity batch the other suites' file-local names
// (kSecond, config(), ...) share one translation unit with these.
namespace role_tests {

using Kind = SmRoleAction::Kind;
namespace ctl = wire::sm_info_control;
constexpr Micros kSecond = 1'000'000;
constexpr Micros kPoll = 2 * kSecond;  // sminfo_polling_timeout
constexpr uint16_t kOk = wire::mad_status::ok;
constexpr uint16_t kInvalid = wire::mad_status::invalid_field;

struct Lines final : LogSink {
  std::vector<std::string> lines;
  bool enabled(LogLevel, Subsystem) const override { return true; }
  void write(LogLevel, Subsystem, std::string_view m) override { lines.emplace_back(m); }
  bool has(std::string_view line) const { return std::find(lines.begin(), lines.end(), line) != lines.end(); }
};

SmRoleConfig config() {
  SmRoleConfig c;
  c.poll_interval = kPoll;
  c.transaction_timeout = 200'000;
  c.polling_retry_number = 3;
  c.sm_priority = 5;
  return c;
}

using testing::info;
using testing::remote;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::entered: return "entered";
    case Kind::follow: return "follow";
    case Kind::send_poll: return "send_poll";
    case Kind::refresh_mirror: return "refresh_mirror";
    case Kind::send_handover: return "send_handover";
    case Kind::probe_handover: return "probe_handover";
    case Kind::send_acknowledge: return "send_acknowledge";
    case Kind::heavy_sweep: return "heavy_sweep";
    case Kind::heavy_sweep_now: return "heavy_sweep_now";
  }
  return "?";
}

std::vector<std::string> kinds(const std::vector<SmRoleAction>& actions) {
  std::vector<std::string> out;
  for (const SmRoleAction& a : actions) out.emplace_back(kind_name(a.kind));
  return out;
}

using Names = std::vector<std::string>;
const wire::SmInfo kSelf = info(10, 5, wire::sm_state::discovering);
namespace st = wire::sm_state;

// An SM at port GUID 10, priority 5, polling every 2 s, 3 misses to a takeover.
struct Role {
  Lines log;
  SmRole role{config(), log};

  void master(Micros now = 0) {
    REQUIRE(role.discovered(kSelf, {}, now));
    REQUIRE(role.state() == SmState::master);
    (void)role.take_actions();
  }
  // STANDBY behind a master at port 20 (lid 20), priority 1.
  void standby(Micros now = 0) {
    REQUIRE_FALSE(role.discovered(kSelf, {remote(20, 1, st::master)}, now));
    REQUIRE(role.state() == SmState::standby);
    (void)role.take_actions();
  }
  // MASTER that sent HANDOVER to a STANDBY at port 20 with priority 10.
  void handing_over(Micros now = 0) {
    master(0);
    REQUIRE_FALSE(role.discovered(kSelf, {remote(20, 10, st::standby)}, now));
    REQUIRE(role.handover_to());
    (void)role.take_actions();
  }
};

void check_entered(const SmRoleAction& a, SmState from, SmState to, std::string_view why) {
  CHECK(a.kind == Kind::entered);
  CHECK(a.from == from);
  CHECK(a.to == to);
  CHECK(a.why == why);
}

TEST_CASE("an sm starts DISCOVERING with its configured priority and no timer", "[manager][sm_role]") {
  Role r;
  CHECK(r.role.state() == SmState::discovering);
  CHECK_FALSE(r.role.is_master());
  CHECK(r.role.advertised_priority() == 5);
  CHECK_FALSE(r.role.next_deadline());
  r.role.timers(10 * kSecond);
  CHECK(r.role.take_actions().empty());
}

TEST_CASE("state names print as OpenSM logs them", "[manager][sm_role]") {
  CHECK(fmt::format("{}", SmState::not_active) == "NOT ACTIVE");
  CHECK(fmt::format("{}", SmState::discovering) == "DISCOVERING");
  CHECK(fmt::format("{}", SmState::standby) == "STANDBY");
  CHECK(fmt::format("{}", SmState::master) == "MASTER");
  CHECK(to_wire(SmState::master) == st::master);
  CHECK(to_wire(SmState::not_active) == st::not_active);
}

TEST_CASE("DISCOVERING -> MASTER when no other sm answers", "[manager][sm_role]") {
  Role r;
  CHECK(r.role.discovered(kSelf, {}, 0));
  CHECK(r.role.state() == SmState::master);
  auto a = r.role.take_actions();
  REQUIRE(a.size() == 1);
  check_entered(a[0], SmState::discovering, SmState::master, "no other sm");
  CHECK(r.log.has("Entering MASTER state (no other sm)"));
  CHECK(r.role.counters().state_changes == 1);
}

TEST_CASE("DISCOVERING -> MASTER when no sm outranks this one", "[manager][sm_role]") {
  Role r;
  CHECK(r.role.discovered(kSelf, {remote(20, 3, st::standby), remote(50, 5, st::discovering)}, 0));
  auto a = r.role.take_actions();
  REQUIRE(a.size() == 1);
  check_entered(a[0], SmState::discovering, SmState::master, "no sm outranks this one");
}

TEST_CASE("DISCOVERING -> STANDBY when a master answers, even a lower one", "[manager][sm_role]") {
  Role r;
  CHECK_FALSE(r.role.discovered(kSelf, {remote(20, 1, st::master)}, 7 * kSecond));
  CHECK(r.role.state() == SmState::standby);
  REQUIRE(r.role.master());
  CHECK(r.role.master()->port_guid == Guid{20});
  auto a = r.role.take_actions();
  CHECK(kinds(a) == Names{"entered", "follow"});
  check_entered(a[0], SmState::discovering, SmState::standby, "another sm is master or outranks this one");
  CHECK(a[1].peer->port_guid == Guid{20});
  CHECK(r.log.has("following the sm at port 0x0000000000000014 (lid 20, priority 1, MASTER)"));
  CHECK(r.role.next_deadline() == 7 * kSecond);  // the first poll at once
}

TEST_CASE("DISCOVERING -> STANDBY when a higher-priority sm answers and there is no master", "[manager][sm_role]") {
  Role r;
  CHECK_FALSE(r.role.discovered(kSelf, {remote(20, 9, st::discovering)}, 0));
  CHECK(r.role.state() == SmState::standby);
  CHECK(r.role.master()->port_guid == Guid{20});
}

TEST_CASE("MASTER stays MASTER when no sm outranks it", "[manager][sm_role]") {
  Role r;
  r.master();
  CHECK(r.role.discovered(kSelf, {remote(20, 3, st::standby), remote(30, 9, st::discovering)}, 0));
  CHECK(r.role.state() == SmState::master);
  CHECK(r.role.take_actions().empty());
}

TEST_CASE("MASTER sends HANDOVER to a higher-priority STANDBY it finds, no ACKNOWLEDGE yet", "[manager][sm_role]") {
  Role r;
  r.master();
  CHECK_FALSE(r.role.discovered(kSelf, {remote(20, 10, st::standby)}, 3 * kSecond));
  CHECK(r.role.state() == SmState::master);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"send_handover"});
  CHECK(a[0].peer->port_guid == Guid{20});
  CHECK(r.role.handover_to()->port_guid == Guid{20});
  CHECK(r.role.counters().handovers_sent == 1);
  // The ACKNOWLEDGE may come for twice the poll interval (at least a second).
  CHECK(r.role.next_deadline() == 3 * kSecond + 2 * kPoll);
  CHECK(r.log.has("handing over to the sm at port 0x0000000000000014 (lid 20, priority 10, STANDBY)"));
}

TEST_CASE("MASTER hands over to a higher MASTER (two masters: the lower steps down)", "[manager][sm_role]") {
  Role r;
  r.master();
  CHECK_FALSE(r.role.discovered(kSelf, {remote(20, 9, st::master)}, 0));
  CHECK(kinds(r.role.take_actions()) == Names{"send_handover"});
}

TEST_CASE("STANDBY polls the master once per poll interval, one poll at a time", "[manager][sm_role]") {
  Role r;
  r.standby(kSecond);
  r.role.timers(kSecond);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"send_poll"});
  CHECK(a[0].peer->port_guid == Guid{20});
  CHECK(a[0].timeout == 200'000);  // the transaction timeout, being shorter than the poll interval
  CHECK(r.role.counters().polls_sent == 1);
  CHECK_FALSE(r.role.next_deadline());  // waiting for the answer
  r.role.timers(kSecond + kPoll);
  CHECK(r.role.take_actions().empty());  // still in flight
  r.role.poll_answered(info(20, 1, st::master));
  CHECK(kinds(r.role.take_actions()) == Names{"refresh_mirror"});
  CHECK(r.role.next_deadline() == kSecond + kPoll);
  r.role.timers(kSecond + kPoll - 1);
  CHECK(r.role.take_actions().empty());
  r.role.timers(kSecond + kPoll);
  CHECK(kinds(r.role.take_actions()) == Names{"send_poll"});
  CHECK(r.role.counters().polls_sent == 2);
}

TEST_CASE("a poll waits no longer than the poll interval", "[manager][sm_role]") {
  Lines log;
  SmRoleConfig c = config();
  c.transaction_timeout = 5 * kSecond;
  SmRole role(c, log);
  REQUIRE_FALSE(role.discovered(kSelf, {remote(20, 1, st::master)}, 0));
  (void)role.take_actions();
  role.timers(0);
  auto a = role.take_actions();
  REQUIRE(kinds(a) == Names{"send_poll"});
  CHECK(a[0].timeout == kPoll);
}

TEST_CASE("STANDBY keeps its master while polls are answered: a miss in between is forgiven", "[manager][sm_role]") {
  Role r;
  r.standby();
  Micros t = 0;
  for (int round = 0; round < 5; ++round) {
    r.role.timers(t);
    REQUIRE(kinds(r.role.take_actions()) == Names{"send_poll"});
    if (round % 3 == 2) {
      r.role.poll_answered(info(20, 1, st::master));
      CHECK(kinds(r.role.take_actions()) == Names{"refresh_mirror"});
    } else {
      r.role.poll_answered(timeout_error("timed out"));
      CHECK(r.role.take_actions().empty());
    }
    t += kPoll;
  }
  CHECK(r.role.state() == SmState::standby);
  CHECK(r.role.counters().polls_failed == 4);
  CHECK(r.role.counters().takeovers == 0);
  CHECK(r.log.has("master at port 0x0000000000000014 (lid 20): poll 2 of 3 failed: timed out"));
  CHECK_FALSE(r.log.has("master at port 0x0000000000000014 (lid 20): poll 3 of 3 failed: timed out"));
}

TEST_CASE("STANDBY -> DISCOVERING after polling_retry_number failed polls, then MASTER (takeover)",
          "[manager][sm_role]") {
  Role r;
  r.standby();
  Micros t = 0;
  for (int miss = 1; miss <= 2; ++miss) {
    r.role.timers(t);
    REQUIRE(kinds(r.role.take_actions()) == Names{"send_poll"});
    r.role.poll_answered(timeout_error("timed out"));
    CHECK(r.role.take_actions().empty());
    CHECK(r.role.state() == SmState::standby);
    t += kPoll;
  }
  r.role.timers(t);
  REQUIRE(kinds(r.role.take_actions()) == Names{"send_poll"});
  r.role.poll_answered(timeout_error("timed out"));
  CHECK(r.role.state() == SmState::discovering);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered", "heavy_sweep_now"});
  check_entered(a[0], SmState::standby, SmState::discovering, "the master stopped answering");
  CHECK_FALSE(r.role.master());
  CHECK(r.role.counters().takeovers == 1);
  CHECK(r.role.counters().polls_failed == 3);
  CHECK(r.log.has("master at port 0x0000000000000014 (lid 20): poll 3 of 3 failed: timed out"));
  CHECK(r.log.has("the master at port 0x0000000000000014 (lid 20) stopped answering: taking over"));
  // The discovery that follows reads the dead master's SMInfo once only.
  CHECK(r.role.take_presumed_dead() == Guid{20});
  CHECK(r.role.take_presumed_dead() == Guid{});
  CHECK(r.role.discovered(kSelf, {}, t));
  CHECK(r.role.state() == SmState::master);
}

TEST_CASE("a poll answered by an sm that is no longer MASTER counts as failed", "[manager][sm_role]") {
  Role r;
  r.standby();
  r.role.timers(0);
  (void)r.role.take_actions();
  r.role.poll_answered(info(20, 1, st::standby));
  CHECK(r.role.take_actions().empty());
  CHECK(r.role.counters().polls_failed == 1);
  CHECK(r.log.has("master at port 0x0000000000000014 (lid 20): poll 1 of 3 failed: it is STANDBY"));
}

TEST_CASE("a late poll answer after the standby left STANDBY is ignored", "[manager][sm_role]") {
  Role r;
  r.standby();
  r.role.timers(0);
  (void)r.role.take_actions();
  REQUIRE(r.role.control(ctl::discover, info(20, 1, st::master), std::nullopt, 0) == kOk);
  (void)r.role.take_actions();
  r.role.poll_answered(timeout_error("timed out"));
  CHECK(r.role.take_actions().empty());
  CHECK(r.role.counters().polls_failed == 0);
}

TEST_CASE("MASTER -> STANDBY on HANDOVER ACK", "[manager][sm_role]") {
  Role r;
  r.handing_over();
  const wire::SmInfo ack = info(20, 10, st::standby);
  CHECK(r.role.control(ctl::acknowledge, ack, std::nullopt, 5 * kSecond) == kOk);
  CHECK(r.role.state() == SmState::standby);
  CHECK_FALSE(r.role.handover_to());
  REQUIRE(r.role.master());
  CHECK(r.role.master()->port_guid == Guid{20});
  CHECK(r.role.master()->info == ack);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered", "follow"});
  check_entered(a[0], SmState::master, SmState::standby, "another sm is master or outranks this one");
  CHECK(r.role.counters().acknowledges_received == 1);
  CHECK(r.role.next_deadline() == 5 * kSecond);  // it polls its new master at once
}

TEST_CASE("an ACKNOWLEDGE from an sm not handed over to is refused", "[manager][sm_role]") {
  Role r;
  r.handing_over();
  CHECK(r.role.control(ctl::acknowledge, info(30, 10, st::standby), std::nullopt, 0) == kInvalid);
  CHECK(r.role.state() == SmState::master);
  CHECK(r.role.handover_to());
  Role idle;
  idle.master();
  CHECK(idle.role.control(ctl::acknowledge, info(20, 10, st::standby), std::nullopt, 0) == kInvalid);
  CHECK(idle.role.counters().acknowledges_received == 0);
}

TEST_CASE("handover without ACKNOWLEDGE times out: the sm asked is probed, and MASTER stays", "[manager][sm_role]") {
  Role r;
  r.handing_over(kSecond);
  const Micros deadline = kSecond + 2 * kPoll;
  r.role.timers(deadline - 1);
  CHECK(r.role.take_actions().empty());
  r.role.timers(deadline);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"probe_handover"});
  CHECK(a[0].peer->port_guid == Guid{20});
  CHECK_FALSE(r.role.next_deadline());  // the probe's own timeout
  r.role.timers(deadline + kSecond);
  CHECK(r.role.take_actions().empty());  // one probe
  r.role.probe_answered(Guid{20}, info(20, 10, st::standby), deadline + kSecond);
  CHECK(r.role.state() == SmState::master);
  CHECK_FALSE(r.role.handover_to());
  CHECK(kinds(r.role.take_actions()) == Names{"heavy_sweep"});
  CHECK(r.role.counters().handover_timeouts == 1);
  CHECK(r.log.has("no ACKNOWLEDGE from port 0x0000000000000014: staying master"));
}

TEST_CASE("handover without ACKNOWLEDGE, probe unanswered: MASTER stays", "[manager][sm_role]") {
  Role r;
  r.handing_over();
  r.role.timers(2 * kPoll);
  (void)r.role.take_actions();
  r.role.probe_answered(Guid{20}, timeout_error("timed out"), 3 * kPoll);
  CHECK(r.role.state() == SmState::master);
  CHECK(kinds(r.role.take_actions()) == Names{"heavy_sweep"});
}

TEST_CASE("handover without ACKNOWLEDGE: MASTER -> STANDBY when the sm asked says MASTER (OpenSM)",
          "[manager][sm_role]") {
  Role r;
  r.handing_over();
  r.role.timers(2 * kPoll);
  (void)r.role.take_actions();
  r.role.probe_answered(Guid{20}, info(20, 10, st::master), 3 * kPoll);
  CHECK(r.role.state() == SmState::standby);
  CHECK(r.role.master()->info.sm_state == st::master);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered", "follow"});
  check_entered(a[0], SmState::master, SmState::standby, "another sm is master or outranks this one");
  CHECK(r.role.counters().handovers_unacknowledged == 1);
  CHECK(r.role.counters().handover_timeouts == 0);
}

TEST_CASE("a HANDOVER the sm asked does not take leaves this sm MASTER", "[manager][sm_role]") {
  Role r;
  r.handing_over();
  r.role.handover_answered(Guid{20}, Status{});  // answered: now the ACKNOWLEDGE is awaited
  CHECK(r.role.take_actions().empty());
  CHECK(r.role.handover_to());
  r.role.handover_answered(Guid{30}, timeout_error("timed out"));  // not the one asked
  CHECK(r.role.take_actions().empty());
  r.role.handover_answered(Guid{20}, timeout_error("timed out"));
  CHECK_FALSE(r.role.handover_to());
  CHECK(r.role.state() == SmState::master);
  CHECK(kinds(r.role.take_actions()) == Names{"heavy_sweep"});
  CHECK(r.log.has("HANDOVER to port 0x0000000000000014 not taken (timed out): staying master"));
}

TEST_CASE("STANDBY -> MASTER on HANDOVER, the ACKNOWLEDGE saying STANDBY", "[manager][sm_role]") {
  Role r;
  r.standby();
  const RemoteSm from = *r.role.master();
  CHECK(r.role.control(ctl::handover, from.info, from, 0) == kOk);
  CHECK(r.role.state() == SmState::master);
  CHECK_FALSE(r.role.master());
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered", "heavy_sweep_now", "send_acknowledge"});
  check_entered(a[0], SmState::standby, SmState::master, "HANDOVER received");
  CHECK(a[2].peer->port_guid == Guid{20});
  CHECK(a[2].as_state == SmState::standby);
  CHECK(r.role.counters().handovers_received == 1);
  CHECK(r.log.has("Entering MASTER state (HANDOVER received)"));
}

TEST_CASE("a HANDOVER to a MASTER is acknowledged, saying MASTER, with a sweep", "[manager][sm_role]") {
  Role r;
  r.master();
  CHECK(r.role.control(ctl::handover, info(20, 1, st::master), remote(20, 1, st::master), 0) == kOk);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"heavy_sweep_now", "send_acknowledge"});
  CHECK(a[1].as_state == SmState::master);
}

TEST_CASE("a HANDOVER from an unknown sm: MASTER, but no ACKNOWLEDGE", "[manager][sm_role]") {
  Role r;
  CHECK(r.role.control(ctl::handover, info(40, 1, st::master), std::nullopt, 0) == kOk);
  CHECK(r.role.state() == SmState::master);
  CHECK(kinds(r.role.take_actions()) == Names{"entered", "heavy_sweep_now"});
  CHECK(r.log.has("HANDOVER from unknown port 0x0000000000000028: no path for the ACKNOWLEDGE"));
}

TEST_CASE("NOT ACTIVE refuses HANDOVER", "[manager][sm_role]") {
  Role r;
  REQUIRE(r.role.disable("test").ok());
  (void)r.role.take_actions();
  CHECK(r.role.control(ctl::handover, info(20, 1, st::master), remote(20, 1, st::master), 0) == kInvalid);
  CHECK(r.role.state() == SmState::not_active);
  CHECK(r.role.take_actions().empty());
  CHECK(r.role.counters().handovers_received == 0);
}

TEST_CASE("DISABLE: STANDBY -> NOT ACTIVE, DISCOVERING -> NOT ACTIVE; a MASTER refuses it", "[manager][sm_role]") {
  Role r;
  r.standby();
  CHECK(r.role.control(ctl::disable, info(20, 1, st::master), std::nullopt, 0) == kOk);
  CHECK(r.role.state() == SmState::not_active);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered"});
  check_entered(a[0], SmState::standby, SmState::not_active, "DISABLE received");
  CHECK_FALSE(r.role.master());
  CHECK_FALSE(r.role.next_deadline());  // no more polls
  CHECK(r.role.control(ctl::disable, info(20, 1, st::master), std::nullopt, 0) == kOk);  // already
  CHECK(r.role.take_actions().empty());

  Role d;
  CHECK(d.role.disable("disabled by the operator").ok());
  CHECK(d.role.state() == SmState::not_active);
  CHECK(d.log.has("Entering NOT ACTIVE state (disabled by the operator)"));

  Role m;
  m.master();
  Status refused = m.role.disable("disabled by the operator");
  CHECK(refused.code() == StatusCode::failed_precondition);
  CHECK(refused.message() == "this sm is MASTER: a master does not accept DISABLE (IBA 14.4.1), hand over first");
  CHECK(m.role.control(ctl::disable, info(20, 1, st::master), std::nullopt, 0) == kInvalid);
  CHECK(m.role.state() == SmState::master);
}

TEST_CASE("STANDBY (the control): NOT ACTIVE -> DISCOVERING; refused in any other state", "[manager][sm_role]") {
  Role r;
  REQUIRE(r.role.disable("test").ok());
  (void)r.role.take_actions();
  CHECK(r.role.control(ctl::standby, info(20, 1, st::master), std::nullopt, 0) == kOk);
  CHECK(r.role.state() == SmState::discovering);
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered", "heavy_sweep_now"});
  check_entered(a[0], SmState::not_active, SmState::discovering, "STANDBY received");

  Status refused = r.role.enable("enabled by the operator");
  CHECK(refused.message() == "this sm is DISCOVERING, not NOT ACTIVE");
  CHECK(r.role.control(ctl::standby, info(20, 1, st::master), std::nullopt, 0) == kInvalid);
  CHECK(r.role.take_actions().empty());
}

TEST_CASE("DISCOVER: STANDBY or NOT ACTIVE -> DISCOVERING; refused while MASTER or DISCOVERING",
          "[manager][sm_role]") {
  Role s;
  s.standby();
  CHECK(s.role.control(ctl::discover, info(20, 1, st::master), std::nullopt, 0) == kOk);
  CHECK(s.role.state() == SmState::discovering);
  auto a = s.role.take_actions();
  REQUIRE(kinds(a) == Names{"entered", "heavy_sweep_now"});
  check_entered(a[0], SmState::standby, SmState::discovering, "DISCOVER received");
  CHECK(s.role.control(ctl::discover, info(20, 1, st::master), std::nullopt, 0) == kInvalid);

  Role n;
  REQUIRE(n.role.disable("test").ok());
  CHECK(n.role.control(ctl::discover, info(20, 1, st::master), std::nullopt, 0) == kOk);
  CHECK(n.role.state() == SmState::discovering);

  Role m;
  m.master();
  CHECK(m.role.control(ctl::discover, info(20, 1, st::master), std::nullopt, 0) == kInvalid);
  CHECK(m.role.state() == SmState::master);
  CHECK(m.role.control(99, info(20, 1, st::master), std::nullopt, 0) == kInvalid);
}

TEST_CASE("the operator's handover goes to the best STANDBY; priority 0 from STANDBY on", "[manager][sm_role]") {
  Role r;
  r.master();
  const std::vector<RemoteSm> others{remote(30, 2, st::standby), remote(20, 3, st::standby),
                                     remote(40, 9, st::discovering)};
  auto to = r.role.request_handover(others, Guid{10}, kSecond);
  REQUIRE(to.ok());
  CHECK(*to == Guid{20});
  CHECK(r.role.yielded());
  CHECK(r.role.advertised_priority() == 5);  // its own while still MASTER
  auto a = r.role.take_actions();
  REQUIRE(kinds(a) == Names{"send_handover"});
  CHECK(a[0].peer->port_guid == Guid{20});
  CHECK(r.log.has("handover requested by the operator: advertising priority 0 from now on"));
  REQUIRE(r.role.control(ctl::acknowledge, info(20, 3, st::standby), std::nullopt, 2 * kSecond) == kOk);
  CHECK(r.role.state() == SmState::standby);
  CHECK(r.role.advertised_priority() == 0);
}

TEST_CASE("the operator's handover is refused when it cannot be done", "[manager][sm_role]") {
  Role r;
  auto not_master = r.role.request_handover({remote(20, 3, st::standby)}, Guid{10}, 0);
  CHECK(not_master.status().message() == "this sm is DISCOVERING, not MASTER");
  r.master();
  auto none = r.role.request_handover({remote(20, 3, st::discovering)}, Guid{10}, 0);
  CHECK(none.status().code() == StatusCode::not_found);
  // Priority 0 and a higher GUID would not outrank this SM at priority 0.
  auto back = r.role.request_handover({remote(20, 0, st::standby)}, Guid{10}, 0);
  CHECK(back.status().message() ==
        "the sm at port 0x0000000000000014 (priority 0) would hand the mastership back to this one (priority 0, "
        "lower guid)");
  CHECK_FALSE(r.role.yielded());
  REQUIRE(r.role.request_handover({remote(20, 3, st::standby)}, Guid{10}, 0).ok());
  auto twice = r.role.request_handover({remote(20, 3, st::standby)}, Guid{10}, 0);
  CHECK(twice.status().message() == "a handover to port 0x0000000000000014 is under way");
  CHECK(kinds(r.role.take_actions()) == Names{"send_handover"});
}

TEST_CASE("a yielded sm that becomes MASTER again, or is reconfigured, advertises its own priority",
          "[manager][sm_role]") {
  Role r;
  r.master();
  REQUIRE(r.role.request_handover({remote(20, 3, st::standby)}, Guid{10}, 0).ok());
  REQUIRE(r.role.control(ctl::acknowledge, info(20, 3, st::standby), std::nullopt, 0) == kOk);
  REQUIRE(r.role.advertised_priority() == 0);
  r.role.reconfigure(config());
  CHECK_FALSE(r.role.yielded());
  CHECK(r.role.advertised_priority() == 5);

  Role h;
  h.master();
  REQUIRE(h.role.request_handover({remote(20, 3, st::standby)}, Guid{10}, 0).ok());
  REQUIRE(h.role.control(ctl::acknowledge, info(20, 3, st::standby), std::nullopt, 0) == kOk);
  REQUIRE(h.role.control(ctl::handover, info(20, 3, st::master), remote(20, 3, st::master), 0) == kOk);
  CHECK_FALSE(h.role.yielded());
  CHECK(h.role.advertised_priority() == 5);
}

TEST_CASE("the master advertises its elevated priority, the others their own", "[manager][sm_role]") {
  Lines log;
  SmRoleConfig c = config();
  c.elevated_priority = 12;
  SmRole role(c, log);
  CHECK(role.advertised_priority() == 5);
  REQUIRE(role.discovered(kSelf, {}, 0));
  CHECK(role.advertised_priority() == 12);
  REQUIRE(role.discovered(kSelf, {remote(20, 13, st::standby)}, 0) == false);
  REQUIRE(role.control(ctl::acknowledge, info(20, 13, st::standby), std::nullopt, 0) == kOk);
  CHECK(role.advertised_priority() == 5);
}

}  // namespace role_tests
}  // namespace ibsm
