// What `ibsm run` says of the manager (tools/daemon/run_status.h): where -o
// stops and the daemon is ready, -o's verdict, systemd's status line; on
// managers over SimFabric.
#include "tools/daemon/run_status.h"

#include <catch2/catch.hpp>

#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {

TEST_CASE("a master's first sweep settles it: SUBNET UP, exit 0", "[tools][daemon][run_status]") {
  FailoverBench b(small_fabric());
  SubnetManager& m = start_master(b, b.config(5));
  CHECK(first_sweep_settled(m));
  const OnceVerdict v = once_verdict(m);
  CHECK(v.exit_status == 0);
  CHECK(v.line.empty());
  CHECK(status_line(m) == fmt::format("MASTER: SUBNET UP, 10 nodes, sm lid {}", m.last_sweep()->sm_lid.value));
}

TEST_CASE("a standby is settled too: SUBNET NOT UP, the master named, exit 1", "[tools][daemon][run_status]") {
  Pair p(5, 1);
  SubnetManager& standby = p.b.manager(p.c);
  REQUIRE(standby.state() == SmState::standby);
  REQUIRE(standby.master());
  CHECK(first_sweep_settled(standby));
  const OnceVerdict v = once_verdict(standby);
  CHECK(v.exit_status == 1);
  CHECK(v.line == fmt::format("SUBNET NOT UP: the sm at port {} (lid {}) is master", standby.master()->port_guid,
                              standby.master()->lid.value));
  CHECK(status_line(standby) ==
        fmt::format("STANDBY: master is port {} (lid {})", standby.master()->port_guid, standby.master()->lid.value));
}

TEST_CASE("before its first sweep a master-to-be is not settled", "[tools][daemon][run_status]") {
  FailoverBench b(small_fabric());
  const size_t i = b.start(ca_ports(b.sim().topology())[0], 5);
  SubnetManager& m = b.manager(i);
  CHECK_FALSE(m.last_sweep());
  if (m.state() != SmState::not_active && m.state() != SmState::standby) {
    CHECK_FALSE(first_sweep_settled(m));
  }
  CHECK(once_verdict(m).line.rfind("SUBNET NOT UP: ", 0) == 0);
  CHECK(status_line(m).find("SUBNET") == std::string::npos);
}

}  // namespace ibsm::test
