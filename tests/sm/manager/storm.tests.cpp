// The master over SimFabric in virtual time in a storm: a burst of traps is
// one sweep (or two, when some come during it), each trap still repressed;
// identical traps are counted, and past OpenSM's limit ignored; a link that
// goes down too often is quarantined (its switch port disabled), reported
// without keeping the subnet from being up, and released by the operator or
// when its hold ends.
#include <catch2/catch.hpp>

#include "sm/manager/port_hold.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

Fabric two_leaves() { return must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 2})); }

SmConfig quiet_config(const FailoverBench& b) {
  SmConfig c = b.config(1);
  c.sweep_interval = 0;  // no light sweeps: every sweep below is a trap's (or the quarantine's)
  return c;
}

// The switch port at the other end of a CA's cable.
PortRef switch_end(const Fabric& f, PortRef ca) {
  const Port& p = f.node(ca.node).port(ca.port);
  return PortRef{p.remote_node, p.remote_port};
}

TEST_CASE("a burst of traps leads to at most two heavy sweeps, every trap repressed", "[manager][storm]") {
  FailoverBench b(two_leaves());
  SubnetManager& m = start_master(b, quiet_config(b));
  const PortRef host = ca_ports(b.sim().topology())[3];
  const uint64_t sweeps = m.counters().heavy_sweeps;
  const uint64_t traps = m.sm_agent().counters().traps;
  const uint64_t answered = m.sm_agent().counters().answered;
  // 20 flaps of one cable with the manager never polled: the traps are taken
  // in as they come (the port's service), the sweeps wait for the poll.
  for (int i = 0; i < 20; ++i) {
    REQUIRE(b.sim().set_link(host, false).ok());
    b.sim().step(1000);
    REQUIRE(b.sim().set_link(host, true).ok());
    b.sim().step(1000);
  }
  b.run_for(30 * kSecond);  // past the trap filter's window
  const uint64_t got = m.sm_agent().counters().traps - traps;
  CHECK(got >= 20);
  CHECK(m.sm_agent().counters().answered - answered >= got);  // a TrapRepress each
  const uint64_t swept = m.counters().heavy_sweeps - sweeps;
  CHECK(swept >= 1);
  CHECK(swept <= 2);
  // The same trap 128 from the leaf again and again: counted, and past 10
  // before it ignored; those acted on asked for a sweep, merged into one.
  const TrapFilterCounters& f = m.trap_filter().counters();
  CHECK(f.repeats >= got - 1);
  CHECK(f.ignored >= got - 11);
  CHECK(m.counters().sweep_requests_coalesced + 1 >= got - f.ignored - (swept - 1));
  CHECK(m.subnet_up());
  CHECK(m.quarantine().held().empty());  // the sweeps saw no link go down
}

// Sweeps that configured the subnet, heavy or incremental: either one counts
// a link's losses.
uint64_t configuring_sweeps(const SubnetManager& m) {
  return m.counters().heavy_sweeps + m.counters().incremental_sweeps;
}

struct FlapBench {
  FailoverBench b{two_leaves()};
  SmConfig config;
  SubnetManager* m = nullptr;
  PortRef host, sw;
  explicit FlapBench(uint32_t hold_s) {
    config = quiet_config(b);
    config.flap_quarantine_threshold = 3;
    config.flap_quarantine_window_s = 60;
    config.flap_quarantine_hold_s = hold_s;
    m = &start_master(b, config);
    host = ca_ports(b.sim().topology())[3];
    sw = switch_end(b.sim().topology(), host);
  }
  Guid switch_guid() { return b.sim().topology().node(sw.node).node_guid; }
  // Pulls or replugs the host's cable and waits for the sweep that sees it
  // (an incremental one, after the trap; a heavy one without).
  void link(bool up) {
    const uint64_t sweeps = configuring_sweeps(*m);
    REQUIRE(b.sim().set_link(host, up).ok());
    REQUIRE(b.run_until_true([&] { return configuring_sweeps(*m) > sweeps; }, 5 * kSecond));
    b.run_for(100'000);
  }
  bool active() { return b.sim().port_state(host) == PortState::active; }
  size_t quarantined_problems() {
    return m->last_sweep() ? count_problems(m->last_sweep()->problems, SweepProblemKind::quarantined) : 0;
  }
};

TEST_CASE("a link that goes down threshold times is quarantined: its switch port disabled, reported, the subnet up",
          "[manager][storm]") {
  FlapBench f(0);
  for (int i = 0; i < 2; ++i) {
    f.link(false);
    f.link(true);
  }
  CHECK(f.m->quarantine().held().empty());  // two losses: under the threshold
  CHECK(f.active());
  f.link(false);  // the third
  REQUIRE(f.m->quarantine().held().size() == 1);
  const QuarantinedPort& q = f.m->quarantine().held().begin()->second;
  CHECK(q.port == PortKey{f.switch_guid(), PortNum{f.sw.port}});  // the switch end, not the host's
  CHECK(q.losses == 3);
  CHECK_FALSE(q.until);  // hold 0: until released
  f.b.run_for(kSecond);
  CHECK(f.b.sim().phys_state(f.sw) == PhysState::disabled);
  // Plugged back in, it stays down: the port is disabled.
  REQUIRE(f.b.sim().set_link(f.host, true).ok());
  f.b.run_for(5 * kSecond);
  CHECK(f.b.sim().phys_state(f.sw) == PhysState::disabled);
  CHECK_FALSE(f.active());
  CHECK(f.m->subnet_up());
  CHECK(f.quarantined_problems() == 1);
  CHECK(f.m->quarantine().quarantined_total() == 1);
  // Released by the operator: it trains again and comes up Active.
  CHECK(f.m->release_quarantine(Guid{0x1234}, PortNum{1}).code() == StatusCode::not_found);
  REQUIRE(f.m->release_quarantine(f.switch_guid(), PortNum{f.sw.port}).ok());
  REQUIRE(f.b.run_until_true([&] { return f.active(); }, 5 * kSecond));
  CHECK(f.m->quarantine().held().empty());
  CHECK(f.b.sim().phys_state(f.sw) == PhysState::link_up);
  f.b.run_for(kSecond);
  CHECK(f.quarantined_problems() == 0);
  CHECK(f.m->subnet_up());
  // Its count started again: one more loss is not a quarantine.
  f.link(false);
  CHECK(f.m->quarantine().held().empty());
}

TEST_CASE("a quarantined port someone enables again is disabled again at the next sweep", "[manager][storm]") {
  FlapBench f(0);
  for (int i = 0; i < 3; ++i) {
    f.link(false);
    if (i < 2) f.link(true);
  }
  REQUIRE(f.m->quarantine().held().size() == 1);
  REQUIRE(f.b.sim().set_link(f.host, true).ok());
  f.b.run_for(kSecond);
  REQUIRE(f.b.sim().phys_state(f.sw) == PhysState::disabled);
  // An operator on host-1 (beside the SM on leaf-0: the SM's DR paths hold
  // from there too) sets the port to Polling, as `ibportstate enable` would.
  const SubnetSnapshot& s = *f.m->subnet();
  const auto leaf = s.fabric.find_by_node_guid(f.switch_guid());
  REQUIRE(leaf);
  const PortRef operator_port = ca_ports(f.b.sim().topology())[1];
  SimPort& tool = f.b.sim().attach(operator_port.node, operator_port.port);
  MadDispatcher d(tool, f.b.sim().clock());
  std::optional<Status> enabled;
  set_port_phys_state(d, s.paths[leaf->value], PortNum{f.sw.port}, PhysState::polling,
                      [&](Status st) { enabled = st; });
  d.run_until_idle();
  REQUIRE(enabled);
  REQUIRE(enabled->ok());
  // The link trains (SimFabric sends no trap 128 for a change an SMP made,
  // so the operator asks for a heavy sweep), and the sweep holds it down again.
  REQUIRE(f.b.sim().phys_state(f.sw) == PhysState::link_up);
  REQUIRE(f.m->request_reroute().ok());
  REQUIRE(f.b.run_until_true([&] { return f.b.sim().phys_state(f.sw) == PhysState::disabled; }, 5 * kSecond));
  f.b.run_for(2 * kSecond);
  CHECK(f.b.sim().phys_state(f.sw) == PhysState::disabled);
  CHECK(f.m->quarantine().held().size() == 1);
  CHECK(f.m->subnet_up());
  const SweepReport* last = f.m->last_sweep();
  REQUIRE(last != nullptr);
  if (last == nullptr) return;  // the embedded build has no exceptions: REQUIRE does not leave
  CHECK(count_problems(last->problems, SweepProblemKind::missing) == 0);
}

TEST_CASE("a quarantined port is released when its hold ends", "[manager][storm]") {
  FlapBench f(20);
  for (int i = 0; i < 3; ++i) {
    f.link(false);
    if (i < 2) f.link(true);
  }
  REQUIRE(f.b.sim().set_link(f.host, true).ok());  // plugged back in: held down
  REQUIRE(f.m->quarantine().held().size() == 1);
  REQUIRE(f.m->quarantine().held().begin()->second.until);
  f.b.run_for(10 * kSecond);
  CHECK(f.b.sim().phys_state(f.sw) == PhysState::disabled);
  CHECK_FALSE(f.active());
  REQUIRE(f.b.run_until_true([&] { return f.active(); }, 15 * kSecond));
  CHECK(f.m->quarantine().held().empty());
}

TEST_CASE("with flap_quarantine_threshold 0 nothing is quarantined", "[manager][storm]") {
  FailoverBench b(two_leaves());
  SmConfig c = quiet_config(b);
  c.flap_quarantine_threshold = 0;
  SubnetManager& m = start_master(b, c);
  const PortRef host = ca_ports(b.sim().topology())[3];
  for (int i = 0; i < 6; ++i) {
    const uint64_t sweeps = configuring_sweeps(m);
    REQUIRE(b.sim().set_link(host, i % 2 == 1).ok());
    REQUIRE(b.run_until_true([&] { return configuring_sweeps(m) > sweeps; }, 5 * kSecond));
  }
  CHECK(m.quarantine().held().empty());
  REQUIRE(b.run_until_true([&] { return b.sim().port_state(host) == PortState::active; }, 5 * kSecond));
}

}  // namespace
}  // namespace ibsm::test
