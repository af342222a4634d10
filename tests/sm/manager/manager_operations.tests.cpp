// The operator's requests to the manager (ibsm ctl over the control socket)
// over SimFabric in virtual time: a light sweep now, a reroute, a handover
// to the best standby, and disable / enable.
#include <catch2/catch.hpp>

#include "tests/sm/manager/failover_bench.h"
#include "tests/sm/sweep/sweep_state_checks.h"

namespace ibsm::test {
namespace {

using st = SmState;


TEST_CASE("a light sweep on request runs at the next poll, on the master only", "[manager][operations]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  SmConfig config = b.config(5);
  config.sweep_interval = 0;  // no periodic light sweeps: only the requested one
  const size_t m = b.start(cas[0], config);
  b.run_for(3 * kSecond);
  REQUIRE(b.manager(m).is_master());
  REQUIRE(b.manager(m).counters().light_sweeps == 0);
  CHECK(std::string_view(b.manager(m).last_sweep_record().kind) == "heavy");
  REQUIRE(b.manager(m).request_light_sweep().ok());
  CHECK(b.manager(m).next_deadline() == b.sim().now());
  b.run_for(10'000);
  CHECK(b.manager(m).counters().light_sweeps == 1);
  const SweepRecord& r = b.manager(m).last_sweep_record();
  CHECK(std::string_view(r.kind) == "light");
  CHECK(r.mads > 0);
  CHECK_FALSE(r.changed);
  b.run_for(3 * kSecond);
  CHECK(b.manager(m).counters().light_sweeps == 1);  // once, not from now on

  const size_t s = b.start(cas[1], 1);
  b.run_for(3 * kSecond);
  REQUIRE(b.manager(s).state() == st::standby);
  Status refused = b.manager(s).request_light_sweep();
  CHECK(refused.code() == StatusCode::failed_precondition);
  CHECK(refused.message().find("STANDBY") != std::string::npos);
}

TEST_CASE("a reroute is a heavy sweep that routes afresh and sets only what differs", "[manager][operations]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  const size_t m = b.start(cas[0], 5);
  b.run_for(3 * kSecond);
  REQUIRE(b.manager(m).is_master());
  const uint64_t heavy = b.manager(m).counters().heavy_sweeps;
  REQUIRE(b.manager(m).request_reroute().ok());
  b.run_for(10'000);
  CHECK(b.manager(m).counters().heavy_sweeps == heavy + 1);
  REQUIRE(b.manager(m).last_sweep());
  CHECK(b.manager(m).last_sweep()->lft_blocks_sent == 0);  // the same routes: nothing to set
  CHECK_FALSE(b.manager(m).last_sweep()->routes.engine.empty());
}

// The edge saves the cache when it hears a sweep's state, before the SA's
// snapshot and the multicast trees are made, so the save runs beside them:
// that is right only while nothing the cache keeps changes after.
TEST_CASE("a sweep's state is heard before its report, and what the cache keeps is final then",
          "[manager][operations]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  const size_t m = b.start(cas[0], 5);
  std::vector<SweepState> heard;
  size_t reports = 0, reports_when_heard = 0;
  b.manager(m).set_sweep_state_listener([&](const SweepState& s) {
    heard.push_back(s);
    reports_when_heard = reports;
  });
  b.manager(m).set_sweep_listener([&](const SweepReport&, Micros) { ++reports; });
  b.run_for(3 * kSecond);
  REQUIRE(b.manager(m).is_master());
  REQUIRE(heard.size() == 1);
  CHECK(reports == 1);
  CHECK(reports_when_heard == 0);
  const SweepState& early = heard.front();
  const SweepState& now = b.manager(m).sweep_state();
  CHECK(early.guid2lid == now.guid2lid);
  CHECK(early.m_keys == now.m_keys);
  testing::check_same_tables(now, early);
  REQUIRE(early.ports.size() == now.ports.size());
  for (const auto& [guid, by_port] : now.ports)
    for (const auto& [port, mem] : by_port) {
      CHECK(early.ports.at(guid).at(port).asked == mem.asked);
      CHECK(early.ports.at(guid).at(port).held == mem.held);
    }
}

TEST_CASE("handover gives the mastership to the best standby, which keeps it", "[manager][operations]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  const size_t master = b.start(cas[0], 10);
  const size_t low = b.start(cas[1], 2);
  const size_t best = b.start(cas[2], 4);
  b.run_for(4 * kSecond);
  REQUIRE(b.master() == master);
  auto to = b.manager(master).request_handover();
  REQUIRE(to.ok());
  CHECK(*to == port_guid(b.sim().topology(), cas[2]));
  REQUIRE(b.run_until_true([&] { return b.master() == best && b.manager(master).state() == st::standby; },
                           5 * kSecond));
  CHECK(b.manager(master).yielded());
  CHECK(b.manager(master).sm_info().priority == 0);
  CHECK(b.manager(master).counters().acknowledges_received == 1);
  // Its next sweeps do not hand the mastership back, whatever it is configured with.
  b.run_for(10 * kSecond);
  CHECK(b.master() == best);
  CHECK(b.masters() == 1);
  CHECK(b.manager(low).state() == st::standby);
  CHECK(b.manager(master).counters().handovers_received == 0);
}

TEST_CASE("handover is refused without a standby, off master, or to one that would hand it back",
          "[manager][operations]") {
  SECTION("no other sm") {
    FailoverBench b(small_fabric());
    const size_t m = b.start(ca_ports(b.sim().topology())[0], 5);
    b.run_for(3 * kSecond);
    REQUIRE(b.manager(m).is_master());
    auto r = b.manager(m).request_handover();
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::not_found);
    CHECK(b.manager(m).is_master());
    CHECK_FALSE(b.manager(m).yielded());
  }
  SECTION("asked of the standby") {
    Pair p(10, 5);
    auto r = p.b.manager(p.c).request_handover();
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::failed_precondition);
  }
  SECTION("both at priority 0, the master with the lower guid") {
    Pair p(0, 0);
    const size_t m = *p.b.master();
    auto r = p.b.manager(m).request_handover();
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("hand the mastership back") != std::string::npos);
    p.b.run_for(3 * kSecond);
    CHECK(p.b.master() == m);
  }
}

TEST_CASE("disable takes a standby to NOT ACTIVE, enable brings it back to STANDBY", "[manager][operations]") {
  Pair p(10, 5);
  REQUIRE(p.b.master() == p.a);
  Status refused = p.b.manager(p.a).disable();
  CHECK(refused.code() == StatusCode::failed_precondition);
  CHECK(p.b.manager(p.a).is_master());
  CHECK(p.b.manager(p.c).enable().code() == StatusCode::failed_precondition);  // not NOT ACTIVE

  REQUIRE(p.b.manager(p.c).disable().ok());
  CHECK(p.b.manager(p.c).state() == st::not_active);
  CHECK(p.b.manager(p.c).sm_info().sm_state == wire::sm_state::not_active);
  const uint64_t polls = p.b.manager(p.c).counters().polls_sent;
  p.b.run_for(5 * kSecond);
  CHECK(p.b.manager(p.c).state() == st::not_active);
  CHECK(p.b.manager(p.c).counters().polls_sent == polls);  // a NOT ACTIVE SM polls no master
  CHECK(p.b.master() == p.a);

  REQUIRE(p.b.manager(p.c).enable().ok());
  REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).state() == st::standby; }, 5 * kSecond));
  REQUIRE(p.b.manager(p.c).master());
  CHECK(p.b.manager(p.c).master()->port_guid == port_guid(p.b.sim().topology(), p.cas[0]));
}

}  // namespace
}  // namespace ibsm::test
