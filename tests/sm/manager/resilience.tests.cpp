// The master over SimFabric in virtual time when the fabric changes behind
// its back: a LID changed by someone else is put back.
#include <catch2/catch.hpp>

#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

constexpr Micros kSecond = 1'000'000;

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

}  // namespace
}  // namespace ibsm::test
