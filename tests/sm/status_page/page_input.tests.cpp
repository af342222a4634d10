// The status page's input from a SubnetManager over SimFabric: a master and
// a standby, each page saying what its SM is and, for the master, how the
// fabric is routed.
#include "sm/status_page/page_input.h"

#include <catch2/catch.hpp>

#include "sm/status_page/load_colour.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

constexpr Micros kSecond = 1'000'000;

TEST_CASE("status page input: master and standby over SimFabric", "[status][manager]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2})));
  const std::vector<PortRef> cas = ca_ports(b.sim().topology());
  const size_t master = b.start(cas[0], 10);
  const size_t standby = b.start(cas[3], 5);
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == master);

  const status::StatusPageInput in = status::status_page_input(b.manager(master), b.sim().now());
  CHECK(in.sm.state == "MASTER");
  CHECK(in.sm.priority == 10);
  CHECK(in.sm.master.empty());
  REQUIRE(in.subnet);
  CHECK(in.sm.lid == in.subnet->sm_lid);
  CHECK_FALSE(in.routing_engine.empty());
  CHECK_THAT(in.routing_check, Catch::StartsWith("routing check ("));
  CHECK(in.routing_check_ok);
  // 6 leaf ports to hosts, 12 between switches (6 cables, both ends).
  CHECK(in.port_routes.size() == 6 + 12);
  REQUIRE_FALSE(in.sweeps.empty());
  CHECK(std::string(in.sweeps.front().kind) == "heavy");
  CHECK(in.sweeps.front().mads > 0);
  CHECK(in.sweeps.front().subnet_up);
  // Light sweeps too (every second in the bench), the latest last.
  CHECK(std::string(in.sweeps.back().kind) == "light");
  const std::string page = status::render_status_page(in);
  CHECK_THAT(page, Catch::Contains("<h1>ibsm status \u2014 MASTER</h1>"));
  CHECK_THAT(page, Catch::Contains(std::string("stroke=\"") + status::kLoadColours[5]));

  // The manager keeps the last few.
  b.run_for(30 * kSecond);
  CHECK(b.manager(master).sweep_history().size() == SubnetManager::kSweepHistory);

  const status::StatusPageInput s = status::status_page_input(b.manager(standby), b.sim().now());
  CHECK(s.sm.state == "STANDBY");
  CHECK_THAT(s.sm.master, Catch::Contains("(priority 10)"));
  CHECK(s.port_routes.empty());
}

}  // namespace
}  // namespace ibsm::test
