// The master over SimFabric in virtual time when the fabric changes behind
// its back: a LID changed by someone else is put back; a node that goes
// silent leaves the subnet partial, retried at once and then with backoff
// while the fabric is probed, until it answers again or is taken as gone.
#include <catch2/catch.hpp>

#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

TEST_CASE("a lid changed behind the master's back is put back to its assignment", "[manager][resilience]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2})));
  const std::vector<PortRef> cas = ca_ports(b.sim().topology());
  b.start(cas[0], 1);
  REQUIRE(b.run_until_true([&] { return b.masters() == 1 && b.manager(0).subnet_up(); }, 3 * kSecond));
  const std::vector<uint16_t> assigned = b.lids();
  const PortRef host = cas[2];
  const Lid before = b.sim().port_lid(host);
  const Lid moved{200};  // free: far above the fabric's LIDs
  REQUIRE(b.sim().set_port_lid(host, moved).ok());
  const uint64_t sweeps = b.manager(0).counters().heavy_sweeps;
  // The light sweep (every second) finds it; the heavy sweep puts it back.
  REQUIRE(b.run_until_true([&] { return b.manager(0).counters().heavy_sweeps > sweeps; }, 3 * kSecond));
  CHECK(b.sim().port_lid(host) == before);
  CHECK(b.lids() == assigned);
  const auto* report = b.manager(0).last_sweep();
  REQUIRE(report);
  const Guid guid = b.sim().topology().node(host.node).port(host.port).guid;
  const LidChange* change = nullptr;
  for (const LidChange& c : report->lids.changes)
    if (c.guid == guid) change = &c;
  REQUIRE(change);
  CHECK(change->reason == LidDropReason::moved);
  CHECK(change->old_base == moved);
  CHECK(change->new_base == before);
  CHECK(describe(*change).find("changed behind the sm's back: restored") != std::string::npos);
  CHECK(b.manager(0).sweep_state().guid2lid.at(guid).min == before);
}

TEST_CASE("a new master keeps the lids the ports hold, even against its own old cache", "[manager][resilience]") {
  // After a restart or a takeover the map is a cache from another time: the
  // live LID wins (a failover changes no LID), only later changes are undone.
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2})));
  const std::vector<PortRef> cas = ca_ports(b.sim().topology());
  b.start(cas[0], 1);
  REQUIRE(b.run_until_true([&] { return b.masters() == 1 && b.manager(0).subnet_up(); }, 3 * kSecond));
  SweepState cache = b.manager(0).sweep_state();
  b.kill(0);
  const PortRef host = cas[2];
  REQUIRE(b.sim().set_port_lid(host, Lid{200}).ok());
  SmConfig config = b.config(1);
  auto again = SubnetManager::create(b.sim().attach(cas[1].node, cas[1].port), b.sim().clock(), config, {},
                                     std::move(cache), null_log_sink());
  REQUIRE(again.ok());
  SubnetManager& m = **again;
  for (int i = 0; i < 300 && !m.last_sweep(); ++i) {
    m.poll(b.sim().now());
    b.sim().step(10'000);
  }
  REQUIRE(m.last_sweep());
  CHECK(b.sim().port_lid(host) == Lid{200});
}

size_t count_kind(const SweepReport& r, SweepProblemKind kind) { return count_problems(r.problems, kind); }

Fabric three_leaves() { return must_fabric(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2})); }

TEST_CASE("a silent node that answered before leaves the subnet partial, retried with backoff, up once it answers",
          "[manager][resilience]") {
  FailoverBench b(three_leaves());
  SmConfig config = b.config(1);
  config.sweep_interval = 10;  // the backoff's cap
  config.missing_node_sweeps = 10;  // not gone within the test
  SubnetManager& m = start_master(b, config);
  const NodeIndex leaf = *b.sim().topology().find_by_name("leaf-2");
  b.sim().set_unresponsive(leaf);  // hung: its links stay up, its SMA answers nothing
  m.request_heavy_sweep();
  const uint64_t before = m.counters().heavy_sweeps;
  const Micros frozen_at = b.sim().now();
  b.run_for(8 * kSecond);
  REQUIRE(m.last_sweep());
  INFO(fmt::format("{}", fmt::join(m.last_sweep()->problems, "; ")));
  CHECK_FALSE(m.subnet_up());
  // Both spines' ports toward it, as missing (not merely unreachable).
  CHECK(count_kind(*m.last_sweep(), SweepProblemKind::missing) == 2);
  CHECK(count_kind(*m.last_sweep(), SweepProblemKind::unreachable) == 0);
  // At once, then after 1, 2 and 4 s: not one a second.
  const uint64_t sweeps = m.counters().heavy_sweeps - before;
  CHECK(sweeps >= 3);
  CHECK(sweeps <= 5);
  // It answers again: the probes see it and the sweep is at once.
  b.sim().set_unresponsive(leaf, false);
  const Micros thawed_at = b.sim().now();
  REQUIRE(b.run_until_true([&] { return m.subnet_up(); }, 10 * kSecond));
  INFO("frozen at " << frozen_at << ", thawed at " << thawed_at << ", up at " << b.sim().now());
  CHECK(b.sim().now() - thawed_at <= 1'500'000);
  CHECK(m.last_sweep()->problems.empty());
}

TEST_CASE("a node silent for missing_node_sweeps heavy sweeps is taken as gone, and the rest is up",
          "[manager][resilience]") {
  FailoverBench b(three_leaves());
  SmConfig config = b.config(1);
  config.sweep_interval = 2;
  config.missing_node_sweeps = 2;
  SubnetManager& m = start_master(b, config);
  b.sim().set_unresponsive(*b.sim().topology().find_by_name("leaf-2"));
  m.request_heavy_sweep();
  b.run_for(50'000);
  CHECK_FALSE(m.subnet_up());
  REQUIRE(b.run_until_true([&] { return m.subnet_up(); }, 10 * kSecond));
  // Gone: left out like a node never seen, and the subnet is the rest.
  CHECK(count_kind(*m.last_sweep(), SweepProblemKind::unreachable) == 2);
  CHECK(m.subnet()->fabric.node_count() == b.sim().topology().node_count() - 3);  // the leaf and its two hosts
}

TEST_CASE("with missing_node_sweeps 0 a silent node is gone at once, as OpenSM", "[manager][resilience]") {
  FailoverBench b(three_leaves());
  SmConfig config = b.config(1);
  config.missing_node_sweeps = 0;
  SubnetManager& m = start_master(b, config);
  b.sim().set_unresponsive(*b.sim().topology().find_by_name("leaf-2"));
  m.request_heavy_sweep();
  b.run_for(50'000);
  CHECK(m.subnet_up());
  CHECK(count_kind(*m.last_sweep(), SweepProblemKind::unreachable) == 2);
}

}  // namespace
}  // namespace ibsm::test
