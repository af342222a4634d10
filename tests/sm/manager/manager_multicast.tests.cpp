// The SubnetManager's multicast step over SimFabric: the master programs
// every group after its heavy sweep and a join at the next poll; a standby
// that takes over reads the MFTs and sets nothing.
#include <map>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/gid_text.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa_header.h"
#include "routing/multicast_check.h"
#include "sa/client.h"
#include "tests/sm/manager/failover_bench.h"
#include "tests/sm/multicast/held_mfts.h"

namespace ibsm::test {
namespace {

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


// A port's own join of `mgid` as a full member (MGID, PortGID, P_Key,
// JoinState selected, as IPoIB joins an existing group), sent to the SA.
void send_join(SimPort& from, const wire::Gid& mgid, Guid port_guid, Lid sm_lid, uint64_t tid) {
  sa::SaRequest req = sa::full_member_join(mgid, wire::Gid::from_parts(SmConfig{}.subnet_prefix, port_guid.value));
  req.tid = tid;
  MadPacket p;
  p.data = sa::encode_request(req);
  p.address = sa::sa_address(sm_lid);
  REQUIRE(from.send(p).ok());
}

// A join storm queued one copy of the group's whole member list per join
// (N joins of one group between two polls: N vectors of up to N ports, 390
// MiB for the 10,648 IPoIB joins of bench/mc_join_storm); one change per
// group is queued now, its members read from the SA when it is programmed.
TEST_CASE("joins of one group between two polls queue one change, programmed with every member",
          "[manager][multicast]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3})));
  const Fabric& topo = b.sim().topology();
  const std::vector<PortRef> cas = ca_ports(topo);
  const size_t master = b.start(cas[0], 10);
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == master);
  SubnetManager& sm = b.manager(master);
  auto bcast = wire::parse_gid("ff12:401b:ffff::ffff:ffff");
  REQUIRE(bcast.ok());
  const wire::Gid mgid{*bcast};
  const Lid sm_lid = b.sm(master).port->local_port().lid;

  Groups groups;
  for (size_t i : {1, 4, 7}) {
    const Guid guid = topo.node(cas[i].node).port(cas[i].port).guid;
    send_join(b.sim().attach(cas[i].node, cas[i].port), mgid, guid, sm_lid, 0x100 + i);
    groups.members[0xC000].push_back(guid);
  }
  // The three joins reach the SA before the manager's next poll.
  b.sim().advance(1000);
  sm.serve_arrivals();
  const sa::McGroup* g = sm.sa().multicast().find(mgid);
  REQUIRE(g != nullptr);
  REQUIRE(g->properties.mlid == Lid{0xC000});
  CHECK(g->members.size() == 3);
  CHECK(sm.multicast_changes_pending() == 1);

  b.run_for(kSecond / 10);
  CHECK(sm.multicast_changes_pending() == 0);
  REQUIRE(sm.last_multicast_update());
  CHECK(sm.last_multicast_update()->groups == 1);
  CHECK(sm.last_multicast_update()->programming.blocks_sent > 0);
  const routing::MulticastCheck c = check_held(b, master, groups);
  INFO(c.to_string());
  CHECK(c.ok());
  CHECK(c.floods == 3);
}

}  // namespace
}  // namespace ibsm::test
