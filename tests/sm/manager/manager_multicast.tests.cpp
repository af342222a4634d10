// The SubnetManager's multicast step over SimFabric: the master programs
// every group after its heavy sweep and a join at the next poll; a standby
// that takes over reads the MFTs and sets nothing.
#include <map>

#include <catch2/catch.hpp>

#include "routing/multicast_check.h"
#include "tests/sm/manager/failover_bench.h"
#include "tests/sm/multicast/held_mfts.h"

namespace ibsm::test {
namespace {

constexpr Micros kSecond = 1'000'000;

// Groups by MLID as port GUIDs, resolved in whatever snapshot is asked about.
struct Groups {
  std::map<uint16_t, std::vector<Guid>> members;
  std::vector<MulticastGroupMembers> in(const SubnetSnapshot& s) const {
    std::vector<MulticastGroupMembers> out;
    for (const auto& [mlid, guids] : members) {
      MulticastGroupMembers g{Lid{mlid}, {}};
      for (Guid guid : guids)
        if (auto p = s.fabric.find_by_port_guid(guid)) g.members.push_back(*p);
      out.push_back(std::move(g));
    }
    return out;
  }
};

routing::MulticastCheck check_held(FailoverBench& b, size_t sm, const Groups& groups) {
  const SubnetSnapshot& s = *b.manager(sm).subnet();
  return routing::check_multicast(s.fabric, held_mfts(b.sim(), s.fabric), groups.in(s));
}

TEST_CASE("the master programs every group after its sweep and a join at the next poll; a takeover sets nothing",
          "[manager][multicast]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3})));
  const Fabric& topo = b.sim().topology();
  const std::vector<PortRef> cas = ca_ports(topo);
  Groups groups;
  for (const PortRef& p : cas) groups.members[0xC000].push_back(topo.node(p.node).port(p.port).guid);
  groups.members[0xC001] = {topo.node(cas[1].node).port(cas[1].port).guid, topo.node(cas[7].node).port(cas[7].port).guid};

  const size_t master = b.start(cas[0], 10);
  const size_t standby = b.start(cas[2], 5);
  for (size_t i : {master, standby})
    b.manager(i).set_multicast_groups([&groups](const SubnetSnapshot& s) { return groups.in(s); });
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == master);
  REQUIRE(b.manager(master).last_multicast_update());
  CHECK(b.manager(master).last_multicast_update()->programming.blocks_sent > 0);
  routing::MulticastCheck c = check_held(b, master, groups);
  INFO(c.to_string());
  CHECK(c.ok());
  CHECK(c.groups == 2);
  REQUIRE(b.manager(master).multicast().tables());
  CHECK(held_mfts(b.sim(), b.manager(master).subnet()->fabric) == *b.manager(master).multicast().tables());

  // A join: one more host in 0xC001, programmed at the next poll.
  groups.members[0xC001].push_back(topo.node(cas[4].node).port(cas[4].port).guid);
  const auto joined = groups.in(*b.manager(master).subnet());
  b.manager(master).request_multicast_update({joined[1]});
  b.run_for(kSecond / 10);
  REQUIRE(b.manager(master).last_multicast_update());
  CHECK(b.manager(master).last_multicast_update()->groups == 1);
  CHECK(b.manager(master).last_multicast_update()->programming.blocks_sent > 0);
  c = check_held(b, master, groups);
  INFO(c.to_string());
  CHECK(c.ok());

  // The master dies; the standby takes over an unchanged fabric.
  b.kill(master);
  REQUIRE(b.run_until_true([&] { return b.master() == standby; }, 10 * kSecond));
  REQUIRE(b.manager(standby).last_multicast_update());
  const MftProgramming& p = b.manager(standby).last_multicast_update()->programming;
  CHECK(p.blocks_read > 0);
  CHECK(p.blocks_sent == 0);
  c = check_held(b, standby, groups);
  CHECK(c.ok());
}

}  // namespace
}  // namespace ibsm::test
