// The operator's status of a manager: what it copies, and its JSON and text.
#include <catch2/catch.hpp>

#include "sm/manager/manager_status.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST_CASE("the status of a master and a standby, as JSON, text and sminfo lines", "[manager][status]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 3})));
  auto cas = ca_ports(b.sim().topology());
  const size_t m = b.start(cas[0], 7);
  const size_t s = b.start(cas[1], 3);
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == m);
  const Lid lid = b.sim().port_lid(cas[0]);
  const ManagerStatus ms = manager_status(b.manager(m), Lid{}, b.sim().now());  // the manager knows its LID
  CHECK(ms.configured);
  CHECK(ms.subnet_up);
  CHECK(ms.nodes == 10);
  CHECK(ms.switches == 4);
  CHECK(ms.cas == 6);
  CHECK(ms.sm_lid == lid);
  CHECK(ms.lid == lid);
  REQUIRE(ms.other_sms.size() == 1);
  CHECK(ms.other_sms[0].priority == 3);

  const Micros later = b.sim().now() + 2 * kSecond;
  const std::string json = status_json(ms, later);
  CHECK(has(json, "\"state\": \"MASTER\""));
  CHECK(has(json, "\"priority\": 7"));
  CHECK(has(json, "\"nodes\": 10, \"switches\": 4, \"cas\": 6"));
  CHECK(has(json, "\"up\": true"));
  CHECK(has(json, "\"age_s\": 2.000"));
  CHECK(has(json, "\"state\": \"STANDBY\""));  // the other SM
  const std::string text = status_text(ms, later);
  CHECK(has(text, "SM state        : MASTER\n"));
  CHECK(has(text, "UP: 10 nodes (4 switches, 6 CAs)"));
  CHECK(has(sminfo_text(ms), fmt::format("sminfo: sm lid {} sm guid {}, activity count", lid, ms.port_guid)));
  CHECK(has(sminfo_text(ms), "priority 7 state 3 SMINFO_MASTER (this sm)\n"));

  const ManagerStatus ss = manager_status(b.manager(s), Lid{}, b.sim().now());
  CHECK(ss.lid == b.sim().port_lid(cas[1]));  // from its discovery
  CHECK_FALSE(ss.configured);
  REQUIRE(ss.master);
  CHECK(ss.master->port_guid == ms.port_guid);
  CHECK(has(sminfo_json(ss), "\"state\": \"STANDBY\""));
  CHECK(has(sminfo_json(ss), "\"master\": {\"port_guid\": \"" + fmt::format("{}", ms.port_guid)));
  CHECK(has(status_json(ss, b.sim().now()), "\"subnet\": null"));
  CHECK(has(sminfo_text(ss), "state 3 SMINFO_MASTER (followed)"));
}

TEST_CASE("status strings are escaped as JSON", "[manager][status]") {
  ManagerStatus s;
  s.problems = {SweepProblem{SweepProblemKind::port_state, Guid{0x21}, PortNum{3}, "node \"a\\b\"\n"}};
  CHECK(has(status_json(s, 0), "\"problems\": [{\"kind\": \"port_state\", \"node\": \"0x0000000000000021\", "
                               "\"port\": 3, \"text\": \"node \\\"a\\\\b\\\"\\n\"}]"));
  CHECK(has(status_json(s, 0), "\"last_sweep\": null"));
}

}  // namespace
}  // namespace ibsm::test
