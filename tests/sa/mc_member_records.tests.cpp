// MCMemberRecord: joins and leaves of every JoinState, groups created with a
// given and an SA-assigned MGID, the components a create needs, the MGID,
// partition, selector and port checks, proxy joins, what Get/GetTable show
// trusted and untrusted requesters, MLIDs over 100,000 join/leave cycles,
// the predefined IPoIB groups, members whose ports leave, and traps 66/67
// through the agent.
#include "sa/mc_member_records.h"

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/gid_text.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/sa_header.h"
#include "sa/agent.h"
#include "sa/mc_predefined.h"
#include "sa/notices.h"
#include "sa/partition_access.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/prng.h"
#include "tests/sa/sa_bench.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::decoded;
namespace js = wire::mc_join_state;
namespace f = wire::mc_member_record_fields;
using wire::McMemberRecord;

namespace {

constexpr uint64_t bit(const wire::Field& field) { return wire::component_bit(wire::mc_member_record_components, field); }
constexpr uint64_t c_mgid = bit(f::mgid), c_port_gid = bit(f::port_gid), c_q_key = bit(f::q_key), c_mlid = bit(f::mlid),
                   c_mtu_sel = bit(f::mtu_selector), c_mtu = bit(f::mtu), c_tclass = bit(f::tclass),
                   c_p_key = bit(f::p_key), c_rate_sel = bit(f::rate_selector), c_rate = bit(f::rate),
                   c_sl = bit(f::sl), c_flow = bit(f::flow_label), c_scope = bit(f::scope),
                   c_join = bit(f::join_state), c_proxy = bit(f::proxy_join);
constexpr uint64_t join_mask = c_mgid | c_port_gid | c_join;
constexpr uint64_t create_mask = join_mask | c_q_key | c_tclass | c_p_key | c_flow | c_sl;

const wire::Gid broadcast{{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}};
const wire::Gid app_mgid{{0xff, 0x15, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42}};

struct McFixture {
  sa::SaSnapshot s = test::offline_snapshot(test::two_port_hca_fabric());
  std::vector<const sa::EndPort*> cas;  // the CA ports, ascending GUID
  sa::MulticastRegistry reg;
  McFixture() {
    for (const sa::EndPort& e : s.endports)
      if (!s.fabric.node(e.ref.node).is_switch()) cas.push_back(&e);
    REQUIRE(cas.size() == 4);
    reg.set_snapshot(s);
  }
  wire::Gid gid(size_t i) const { return sa::port_gid(s, *cas[i]); }
  Lid lid(size_t i) const { return cas[i]->base_lid; }

  sa::SaQueryResult run(uint8_t method, uint64_t mask, const McMemberRecord& t, size_t requester, bool trusted = false) {
    auto e = test::encoded_query(method, wire::sa_attr::mc_member_record, mask, t, wire::sa_record_size::mc_member,
                                 lid(requester), trusted);
    return reg.handle(s, e.query);
  }
  // Port `i` joins `mgid` with `join_state` (its own port, the join components only).
  sa::SaQueryResult join(size_t i, const wire::Gid& mgid, uint8_t join_state) {
    return run(wire::method::set, join_mask, member_of(mgid, i, join_state), i);
  }
  sa::SaQueryResult leave(size_t i, const wire::Gid& mgid, uint8_t join_state) {
    return run(wire::method::delete_, join_mask, member_of(mgid, i, join_state), i);
  }
  McMemberRecord member_of(const wire::Gid& mgid, size_t i, uint8_t join_state) const {
    McMemberRecord t;
    t.mgid = mgid;
    t.port_gid = gid(i);
    t.join_state = join_state;
    return t;
  }
  // A create request of port `i`: the create components with these values.
  McMemberRecord create_of(const wire::Gid& mgid, size_t i, uint8_t join_state = js::full_member) const {
    McMemberRecord t = member_of(mgid, i, join_state);
    t.q_key = 0x11223344;
    t.p_key = 0xFFFF;
    t.tclass = 3;
    t.sl = 2;
    t.flow_label = 0x12345;
    return t;
  }
};

McMemberRecord member_record(const sa::SaQueryResult& r, size_t i = 0) {
  REQUIRE(r.status == 0);
  REQUIRE(i < r.count);
  return decoded(wire::decode_mc_member_record(r.record(i)));
}

}  // namespace

TEST_CASE("a group is created by a full member's join and takes the next MLID", "[sa][multicast]") {
  McFixture fx;
  // The default partition's broadcast group is there from the first snapshot, at 0xC000.
  REQUIRE(fx.reg.groups().size() == 1);
  const sa::McGroup* bc = fx.reg.groups().find(broadcast);
  REQUIRE(bc != nullptr);
  CHECK(bc->properties.mlid == Lid{0xC000});
  CHECK(bc->predefined);

  auto r = fx.run(wire::method::set, create_mask, fx.create_of(app_mgid, 0), 0);
  const McMemberRecord got = member_record(r);
  CHECK(r.attr_offset == 7);
  CHECK(got.mgid == app_mgid);
  CHECK(got.port_gid == fx.gid(0));
  CHECK(got.mlid == Lid{0xC001});
  CHECK(got.q_key == 0x11223344);
  CHECK(got.p_key == 0xFFFF);
  CHECK(got.tclass == 3);
  CHECK(got.sl == 2);
  CHECK(got.flow_label == 0x12345);
  CHECK(got.scope == 5);                         // the MGID's scope nibble
  CHECK(got.mtu == fx.s.port_info[fx.cas[0]->ref.node.value][1].mtu_cap);  // none asked: the port's
  CHECK(got.mtu_selector == wire::sa_selector::exactly);
  CHECK(got.rate_selector == wire::sa_selector::exactly);
  CHECK(got.packet_life_time == fx.s.path_packet_life_time);
  CHECK(got.join_state == js::full_member);
  CHECK_FALSE(got.proxy_join);
  CHECK(fx.reg.groups().members(Lid{0xC001}) == std::vector<PortRef>{fx.cas[0]->ref});
}

TEST_CASE("creating needs a full or send-only full member and the create components", "[sa][multicast]") {
  McFixture fx;
  CHECK(fx.run(wire::method::set, create_mask, fx.create_of(app_mgid, 0, js::non_member), 0).status ==
        wire::sa_status::req_invalid);
  CHECK(fx.run(wire::method::set, create_mask, fx.create_of(app_mgid, 0, js::send_only_non_member), 0).status ==
        wire::sa_status::req_invalid);
  for (uint64_t missing : {c_q_key, c_tclass, c_p_key, c_flow, c_sl}) {
    INFO("missing " << missing);
    CHECK(fx.run(wire::method::set, create_mask & ~missing, fx.create_of(app_mgid, 0), 0).status ==
          wire::sa_status::req_insufficient_components);
  }
  for (uint64_t missing : {c_mgid, c_port_gid, c_join}) {
    CHECK(fx.run(wire::method::set, create_mask & ~missing, fx.create_of(app_mgid, 0), 0).status ==
          wire::sa_status::req_insufficient_components);
    CHECK(fx.run(wire::method::delete_, join_mask & ~missing, fx.member_of(broadcast, 0, js::full_member), 0).status ==
          wire::sa_status::req_insufficient_components);
  }
  CHECK(fx.run(wire::method::set, create_mask | (1ULL << 40), fx.create_of(app_mgid, 0), 0).status ==
        wire::sa_status::req_invalid);  // no such component
  CHECK(fx.reg.groups().size() == 1);
  // A send-only full member may create (IBA 1.3 SendOnlyFullMember).
  CHECK(fx.run(wire::method::set, create_mask, fx.create_of(app_mgid, 0, js::send_only_full_member), 0).status == 0);
  CHECK(fx.reg.groups().size() == 2);
}

TEST_CASE("a zero MGID is assigned by the SA; a given one must be a valid multicast GID", "[sa][multicast]") {
  McFixture fx;
  auto a = member_record(fx.run(wire::method::set, create_mask, fx.create_of(wire::Gid{}, 0), 0));
  CHECK(a.mgid.raw[0] == 0xff);
  CHECK(a.mgid.raw[1] == 0x12);  // link-local unless Scope is given
  CHECK(a.mgid.raw[2] == 0xa0);
  CHECK(a.mgid.raw[3] == 0x1b);  // the SA-assigned signature
  uint64_t prefix = 0;
  for (int i = 0; i < 8; ++i) prefix = prefix << 8 | a.mgid.raw[4 + i];
  CHECK(prefix == fx.s.subnet_prefix);
  McMemberRecord scoped = fx.create_of(wire::Gid{}, 1);
  scoped.scope = 8;
  auto b = member_record(fx.run(wire::method::set, create_mask | c_scope, scoped, 1));
  CHECK(b.mgid.raw[1] == 0x18);
  CHECK(b.scope == 8);
  CHECK(a.mgid != b.mgid);
  CHECK(b.mlid.value == a.mlid.value + 1);

  auto bad = [&](wire::Gid mgid, uint64_t extra = 0, uint8_t scope = 0) {
    McMemberRecord t = fx.create_of(mgid, 0);
    t.scope = scope;
    return fx.run(wire::method::set, create_mask | extra, t, 0).status;
  };
  wire::Gid not_multicast = app_mgid;
  not_multicast.raw[0] = 0xfe;
  CHECK(bad(not_multicast) == wire::sa_status::req_invalid);
  wire::Gid reserved_flags = app_mgid;
  reserved_flags.raw[1] = 0x35;
  CHECK(bad(reserved_flags) == wire::sa_status::req_invalid);
  wire::Gid sa_link_local{{0xff, 0x12, 0xa0, 0x1b, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 9}};
  CHECK(bad(sa_link_local) == wire::sa_status::req_invalid);
  // Scope 2 selected with an MGID of scope 5: the group's scope is the MGID's (as OpenSM, osmtest).
  CHECK(bad(app_mgid, c_scope, 2) == 0);
  CHECK(fx.reg.groups().find(app_mgid)->properties.scope == 5);
}

TEST_CASE("every JoinState joins and leaves; a leave names bits the member holds", "[sa][multicast]") {
  McFixture fx;
  REQUIRE(fx.join(0, broadcast, js::full_member).status == 0);
  REQUIRE(fx.join(1, broadcast, js::non_member).status == 0);
  REQUIRE(fx.join(2, broadcast, js::send_only_non_member).status == 0);
  REQUIRE(fx.join(3, broadcast, js::send_only_full_member).status == 0);
  CHECK(fx.join(3, broadcast, 0).status == wire::sa_status::req_invalid);  // JoinState 0
  CHECK(member_record(fx.join(1, broadcast, js::full_member)).join_state == (js::full_member | js::non_member));  // bits add up
  const sa::McGroup* g = fx.reg.groups().find(broadcast);
  CHECK(g->members.size() == 4);
  CHECK(g->members.at(fx.cas[1]->guid.value).join_state == (js::full_member | js::non_member));
  CHECK(fx.reg.groups().members(Lid{0xC000}).size() == 4);  // send-only members too

  CHECK(fx.leave(2, broadcast, js::full_member).status == wire::sa_status::req_invalid);  // not held
  CHECK(fx.leave(1, broadcast, js::full_member | js::send_only_non_member).status == wire::sa_status::req_invalid);
  CHECK(fx.leave(0, app_mgid, js::full_member).status == wire::sa_status::req_invalid);  // no such group
  // Another port may not leave for a member (no ProxyJoin): o15-0.2.1.
  CHECK(fx.run(wire::method::delete_, join_mask, fx.member_of(broadcast, 0, js::full_member), 1).status ==
        wire::sa_status::req_invalid);
  auto left = member_record(fx.leave(1, broadcast, js::non_member));
  CHECK(left.join_state == js::full_member);  // what the member still holds
  CHECK(left.mlid == Lid{0xC000});
  CHECK(g->members.at(fx.cas[1]->guid.value).join_state == js::full_member);
  for (size_t i : {0, 1}) CHECK(fx.leave(i, broadcast, js::full_member).status == 0);
  CHECK(fx.leave(2, broadcast, js::send_only_non_member).status == 0);
  CHECK(fx.leave(3, broadcast, js::send_only_full_member).status == 0);
  CHECK(g->members.empty());
  CHECK(fx.reg.groups().size() == 1);  // predefined: it stays
}

TEST_CASE("a joining port must be in the group's partition and reach its MTU and rate", "[sa][multicast]") {
  McFixture fx;
  // Port 2's P_Key table holds only partition 0x0005.
  auto& table = fx.s.p_keys[fx.cas[2]->ref.node.value][fx.cas[2]->ref.port];
  std::fill(table.begin(), table.end(), uint16_t{0});
  table[0] = 0x8005;
  CHECK(fx.join(2, broadcast, js::full_member).status == wire::sa_status::req_invalid);
  McMemberRecord t = fx.create_of(app_mgid, 2);
  CHECK(fx.run(wire::method::set, create_mask, t, 2).status == wire::sa_status::req_invalid);  // 0xFFFF not held
  t.p_key = 0x0005;  // the limited member's key of the port's partition: allowed, the group keeps it
  CHECK(member_record(fx.run(wire::method::set, create_mask, t, 2)).p_key == 0x0005);
  McMemberRecord zero = fx.create_of(wire::Gid{}, 2);
  zero.p_key = 0x8000;  // partition 0, the invalid P_Key
  CHECK(fx.run(wire::method::set, create_mask, zero, 2).status == wire::sa_status::req_invalid);

  // A port whose MTUCap is below the group's MTU cannot join it.
  fx.s.port_info[fx.cas[3]->ref.node.value][fx.cas[3]->ref.port].mtu_cap = 3;  // 1024 < the group's 2048
  CHECK(fx.join(3, broadcast, js::full_member).status == wire::sa_status::req_invalid);
  CHECK(fx.join(0, broadcast, js::full_member).status == 0);
}

TEST_CASE("MTU, Rate and PacketLifeTime selectors must be met by the group", "[sa][multicast]") {
  McFixture fx;
  const McMemberRecord& bc = fx.reg.groups().find(broadcast)->properties;  // MTU 4, rate 3 (10 Gb/s)
  REQUIRE(bc.mtu == 4);
  REQUIRE(bc.rate == 3);
  auto try_join = [&](uint64_t extra, auto&& set) {
    McMemberRecord t = fx.member_of(broadcast, 0, js::full_member);
    set(t);
    return fx.run(wire::method::set, join_mask | extra, t, 0).status;
  };
  using S = McMemberRecord&;
  CHECK(try_join(c_mtu_sel | c_mtu, [](S t) { t.mtu_selector = wire::sa_selector::greater_than, t.mtu = 4; }) ==
        wire::sa_status::req_invalid);
  CHECK(try_join(c_mtu_sel | c_mtu, [](S t) { t.mtu_selector = wire::sa_selector::greater_than, t.mtu = 3; }) == 0);
  CHECK(try_join(c_mtu_sel | c_mtu, [](S t) { t.mtu_selector = wire::sa_selector::less_than, t.mtu = 4; }) ==
        wire::sa_status::req_invalid);
  CHECK(try_join(c_mtu_sel | c_mtu, [](S t) { t.mtu_selector = wire::sa_selector::exactly, t.mtu = 4; }) == 0);
  CHECK(try_join(c_mtu_sel | c_mtu, [](S t) { t.mtu_selector = wire::sa_selector::largest, t.mtu = 1; }) == 0);
  CHECK(try_join(c_mtu, [](S t) { t.mtu = 5; }) == wire::sa_status::req_invalid);  // a value, no selector: exactly
  CHECK(try_join(c_mtu_sel | c_mtu, [](S t) { t.mtu = 7; }) == wire::sa_status::req_invalid);  // no MTU code
  // Rates go by speed, not by code: code 5 (5 Gb/s) is slower than code 3 (10 Gb/s).
  CHECK(try_join(c_rate_sel | c_rate, [](S t) { t.rate_selector = wire::sa_selector::greater_than, t.rate = 5; }) == 0);
  CHECK(try_join(c_rate_sel | c_rate, [](S t) { t.rate_selector = wire::sa_selector::less_than, t.rate = 5; }) ==
        wire::sa_status::req_invalid);
  CHECK(try_join(c_rate_sel | c_rate, [](S t) { t.rate_selector = wire::sa_selector::exactly, t.rate = 6; }) ==
        wire::sa_status::req_invalid);
  const uint64_t c_life_sel = bit(f::packet_life_time_selector), c_life = bit(f::packet_life_time);
  const uint8_t life = bc.packet_life_time;
  CHECK(try_join(c_life_sel | c_life, [&](S t) { t.packet_life_time_selector = 1, t.packet_life_time = life + 1; }) == 0);
  CHECK(try_join(c_life_sel | c_life, [&](S t) { t.packet_life_time_selector = 0, t.packet_life_time = life; }) ==
        wire::sa_status::req_invalid);
  // The group's other components must be as selected.
  CHECK(try_join(c_q_key, [](S t) { t.q_key = 0x0B1B; }) == 0);
  CHECK(try_join(c_q_key, [](S t) { t.q_key = 0x0B1C; }) == wire::sa_status::req_invalid);
  CHECK(try_join(c_mlid, [](S t) { t.mlid = Lid{0xC001}; }) == wire::sa_status::req_invalid);
  CHECK(try_join(c_p_key | c_sl, [](S t) { t.p_key = 0xFFFF, t.sl = 0; }) == 0);

  // A new group's MTU follows the selector against the port (MTUCap 5 here).
  McMemberRecord t = fx.create_of(app_mgid, 1);
  t.mtu_selector = wire::sa_selector::exactly;
  t.mtu = 5;
  CHECK(member_record(fx.run(wire::method::set, create_mask | c_mtu_sel | c_mtu, t, 1)).mtu == 5);
  McMemberRecord less = fx.create_of(wire::Gid{}, 1);
  less.mtu_selector = wire::sa_selector::less_than;
  less.mtu = 4;
  CHECK(member_record(fx.run(wire::method::set, create_mask | c_mtu_sel | c_mtu, less, 1)).mtu == 3);
  McMemberRecord greater = fx.create_of(wire::Gid{}, 1);
  greater.mtu_selector = wire::sa_selector::greater_than;
  greater.mtu = 5;  // nothing above the port's 4096
  CHECK(fx.run(wire::method::set, create_mask | c_mtu_sel | c_mtu, greater, 1).status == wire::sa_status::req_invalid);
}

TEST_CASE("a proxy join needs the SM_Key, and marks the member ProxyJoin", "[sa][multicast]") {
  McFixture fx;
  const McMemberRecord t = fx.member_of(broadcast, 2, js::full_member);  // port 2, asked by port 0
  CHECK(fx.run(wire::method::set, join_mask, t, 0).status == wire::sa_status::req_invalid);
  auto r = member_record(fx.run(wire::method::set, join_mask, t, 0, /*trusted=*/true));
  CHECK(r.proxy_join);
  CHECK(fx.reg.groups().find(broadcast)->members.at(fx.cas[2]->guid.value).proxy_join);
  // A proxy-joined member may be changed by any port of the group's partition.
  CHECK(fx.run(wire::method::delete_, join_mask, t, 1).status == 0);
  // Unknown ports are refused.
  McMemberRecord stranger = t;
  stranger.port_gid = wire::Gid::from_parts(fx.s.subnet_prefix, 0x1234);
  CHECK(fx.run(wire::method::set, join_mask, stranger, 0, true).status == wire::sa_status::req_invalid);
}

TEST_CASE("GetTable shows trusted requesters every member, others one record per group", "[sa][multicast]") {
  McFixture fx;
  REQUIRE(fx.join(0, broadcast, js::full_member).status == 0);
  REQUIRE(fx.join(1, broadcast, js::non_member).status == 0);
  REQUIRE(fx.run(wire::method::set, create_mask, fx.create_of(app_mgid, 1), 1).status == 0);
  McMemberRecord none;

  auto untrusted = fx.run(wire::method::get_table, 0, none, 3);
  REQUIRE(untrusted.count == 2);  // MGID order: ff12:401b... before ff15:1234...
  CHECK(member_record(untrusted, 0).mgid == broadcast);
  CHECK(member_record(untrusted, 1).mgid == app_mgid);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(member_record(untrusted, i).port_gid == wire::Gid{});
    CHECK(member_record(untrusted, i).join_state == 0);
  }
  CHECK(member_record(untrusted, 0).mlid == Lid{0xC000});
  CHECK(member_record(untrusted, 0).q_key == sa::ipoib_q_key);

  auto trusted = fx.run(wire::method::get_table, 0, none, 3, true);
  REQUIRE(trusted.count == 3);
  CHECK(member_record(trusted, 0).port_gid == fx.gid(0));
  CHECK(member_record(trusted, 0).join_state == js::full_member);
  CHECK(member_record(trusted, 1).port_gid == fx.gid(1));
  CHECK(member_record(trusted, 1).join_state == js::non_member);
  CHECK(member_record(trusted, 2).mgid == app_mgid);

  // Matching: by JoinState over the members, by MLID, by PortGID.
  McMemberRecord t;
  t.join_state = js::non_member;
  CHECK(fx.run(wire::method::get_table, c_join, t, 3, true).count == 1);
  CHECK(fx.run(wire::method::get_table, c_join, t, 3).count == 1);  // the group with such a member
  t.mlid = Lid{0xC001};
  CHECK(fx.run(wire::method::get_table, c_mlid, t, 3).count == 1);
  McMemberRecord mine = fx.member_of(broadcast, 1, 0);
  auto one = fx.run(wire::method::get, c_mgid | c_port_gid, mine, 1);
  CHECK(member_record(one).port_gid == wire::Gid{});  // untrusted: zeros even for its own record
  CHECK(member_record(fx.run(wire::method::get, c_mgid | c_port_gid, mine, 1, true)).join_state == js::non_member);
  CHECK(fx.run(wire::method::get, 0, none, 3).status == wire::sa_status::too_many_records);
  McMemberRecord nothing;
  nothing.mgid = wire::Gid{{0xff, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
  CHECK(fx.run(wire::method::get, c_mgid, nothing, 3).status == wire::sa_status::no_records);

  // An untrusted requester sees only the groups of its partitions.
  auto& table = fx.s.p_keys[fx.cas[3]->ref.node.value][fx.cas[3]->ref.port];
  std::fill(table.begin(), table.end(), uint16_t{0});
  table[0] = 0x8005;
  CHECK(fx.run(wire::method::get_table, 0, none, 3).count == 0);
  CHECK(fx.run(wire::method::get_table, 0, none, 3, true).count == 3);
}

TEST_CASE("100,000 joins and leaves of mixed JoinStates hold a steady MLID count", "[sa][multicast]") {
  McFixture fx;
  topogen::Prng rng(42);
  std::array<wire::Gid, 6> mgids;
  for (size_t k = 0; k < mgids.size(); ++k) {
    mgids[k] = app_mgid;
    mgids[k].raw[15] = static_cast<uint8_t>(k);
  }
  const std::array<uint8_t, 6> states = {js::full_member, js::non_member, js::send_only_non_member,
                                         js::send_only_full_member, js::full_member | js::send_only_full_member,
                                         js::full_member | js::non_member};
  uint32_t highest = 0;
  for (int cycle = 0; cycle < 100'000; ++cycle) {
    const wire::Gid& mgid = mgids[rng.below(mgids.size())];
    const size_t port = rng.below(4);
    const uint8_t state = states[rng.below(states.size())];
    if (rng.below(2) == 0) {
      (void)fx.run(wire::method::set, create_mask, fx.create_of(mgid, port, state), port);
    } else if (const sa::McGroup* g = fx.reg.groups().find(mgid)) {
      // Leave some bits the member holds: partial leaves included (0x9 -> 0x1 leaves 0x8).
      auto it = g->members.find(fx.cas[port]->guid.value);
      if (it != g->members.end()) {
        const uint8_t held = it->second.join_state;
        uint8_t bits = held & state;
        if (bits == 0) bits = held;
        REQUIRE(fx.leave(port, mgid, bits).status == 0);
      }
    }
    // Every group has a full member or is predefined; MLIDs in use are the groups.
    for (const auto& [k, g] : fx.reg.groups().groups()) REQUIRE((g.predefined || g.full_members() > 0));
    REQUIRE(fx.reg.groups().mlids_in_use() == fx.reg.groups().size());
    for (const auto& [k, g] : fx.reg.groups().groups()) highest = std::max<uint32_t>(highest, g.properties.mlid.value);
  }
  CHECK(highest <= 0xC000u + mgids.size());  // never more MLIDs than groups could exist at once
  // Everyone leaves: only the predefined group remains.
  for (const wire::Gid& mgid : mgids)
    for (size_t port = 0; port < 4; ++port)
      if (const sa::McGroup* g = fx.reg.groups().find(mgid))
        if (auto it = g->members.find(fx.cas[port]->guid.value); it != g->members.end())
          REQUIRE(fx.leave(port, mgid, it->second.join_state).status == 0);
  CHECK(fx.reg.groups().size() == 1);
  CHECK(fx.reg.groups().mlids_in_use() == 1);
}

TEST_CASE("members whose ports leave are removed, and their groups with them", "[sa][multicast]") {
  McFixture fx;
  REQUIRE(fx.run(wire::method::set, create_mask, fx.create_of(app_mgid, 0), 0).status == 0);
  REQUIRE(fx.join(1, app_mgid, js::non_member).status == 0);
  REQUIRE(fx.join(0, broadcast, js::full_member).status == 0);
  (void)fx.reg.take_changes();
  (void)fx.reg.take_events();
  // Port 0 leaves: a snapshot where it has no PortInfo (a port the sweep did not reach).
  sa::SaSnapshot without = fx.s;
  without.port_info[fx.cas[0]->ref.node.value][fx.cas[0]->ref.port].port_state = PortState::no_change;
  without.index();
  REQUIRE(without.by_port_guid(fx.cas[0]->guid) == nullptr);
  fx.reg.set_snapshot(without);
  CHECK(fx.reg.groups().find(app_mgid) == nullptr);
  CHECK(fx.reg.groups().find(broadcast)->members.empty());
  const auto events = fx.reg.take_events();
  REQUIRE(events.size() == 1);
  CHECK(events[0].trap == wire::trap_number::mcast_group_deleted);
  CHECK(fx.reg.take_changes() == std::vector<Lid>{Lid{0xC000}, Lid{0xC001}});
}

TEST_CASE("predefined groups: each ipoib partition's broadcast group and every mgid= line", "[sa][multicast]") {
  auto conf = std::make_shared<PartitionConfig>();
  Partition a;
  a.name = "a";
  a.pkey = 0x0005;
  a.ipoib = true;
  a.flags.mtu = 5;
  a.flags.rate = 7;
  a.flags.sl = 1;
  a.flags.scope_mask = (1u << 2) | (1u << 5);
  PartitionGroup ip;  // an IPv6 group: the partition's P_Key and Q_Key 0x0B1B are filled in
  ip.mgid = {0xff, 0x12, 0x60, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16};
  ip.flags.scope_mask = 1u << 2;
  PartitionGroup other_rate = ip;  // an IP group at another rate than the broadcast group: skipped
  other_rate.mgid[15] = 0x17;
  other_rate.flags.rate = 3;
  PartitionGroup plain;  // not IP: its own Q_Key, inherits the partition's scopes
  plain.mgid = {0xff, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
  plain.flags.q_key = 0xDEAD;
  a.groups = {ip, other_rate, plain};
  Partition b;
  b.pkey = 0x0006;  // not ipoib: no broadcast group
  conf->partitions = {a, b};

  auto defs = sa::predefined_groups(conf.get(), 17);
  std::vector<std::string> names;
  for (const auto& g : defs.groups) names.push_back(wire::format_gid(g.mgid.raw));
  CHECK(names == std::vector<std::string>{"ff12:401b:8005:0000:0000:0000:ffff:ffff",
                                          "ff15:401b:8005:0000:0000:0000:ffff:ffff",
                                          "ff12:601b:8005:0000:0000:0000:0000:0016",
                                          "ff12:0000:0000:0000:0000:0000:0000:0001",
                                          "ff15:0000:0000:0000:0000:0000:0000:0001"});
  CHECK(defs.skipped.size() == 1);
  const McMemberRecord& bc = defs.groups[0];
  CHECK(bc.p_key == 0x8005);
  CHECK(bc.q_key == sa::ipoib_q_key);
  CHECK(bc.mtu == 5);
  CHECK(bc.rate == 7);
  CHECK(bc.sl == 1);
  CHECK(bc.scope == 2);
  CHECK(bc.hop_limit == 0);
  CHECK(defs.groups[1].hop_limit == 0xFF);
  CHECK(bc.packet_life_time == 17);
  CHECK(defs.groups[2].q_key == sa::ipoib_q_key);
  CHECK(defs.groups[3].q_key == 0xDEAD);

  // No configuration: OpenSM's default partition and its broadcast group.
  auto def = sa::predefined_groups(nullptr, 18);
  REQUIRE(def.groups.size() == 1);
  CHECK(def.groups[0].mgid == broadcast);
  CHECK(def.groups[0].p_key == 0xFFFF);
  CHECK(def.groups[0].mtu == sa::default_group_mtu);
  CHECK(def.groups[0].rate == sa::default_group_rate);

  // A new configuration adds its groups and lets go of the old ones.
  McFixture fx;
  REQUIRE(fx.join(0, broadcast, js::full_member).status == 0);
  fx.reg.set_partitions(conf, &fx.s);
  CHECK(fx.reg.groups().size() == 6);
  const sa::McGroup* old = fx.reg.groups().find(broadcast);
  REQUIRE(old != nullptr);  // its full member keeps it, no longer predefined
  CHECK_FALSE(old->predefined);
  REQUIRE(fx.leave(0, broadcast, js::full_member).status == 0);
  CHECK(fx.reg.groups().find(broadcast) == nullptr);
  CHECK(fx.reg.groups().size() == 5);
  fx.reg.set_partitions(nullptr, &fx.s);
  CHECK(fx.reg.groups().size() == 1);
  CHECK(fx.reg.groups().find(broadcast)->properties.mlid == Lid{0xC000});  // the lowest free again
}

TEST_CASE("SA agent: subscribers get trap 66 when a group is created and 67 when it is deleted", "[sa][multicast]") {
  test::SaBench b(test::must(topogen::kary_ntree({.k = 2, .n = 2})));
  const Lid client_lid = b.client->local_port().lid;
  const sa::EndPort* me = b.snapshot->by_lid(client_lid);
  REQUIRE(me != nullptr);
  const wire::Gid my_gid = sa::port_gid(*b.snapshot, *me);

  for (uint16_t trap : {wire::trap_number::mcast_group_created, wire::trap_number::mcast_group_deleted}) {
    auto a = b.call(test::sa_request(wire::method::set, wire::sa_attr::inform_info, 0, test::generic_trap(trap),
                                     wire::inform_info_size));
    REQUIRE(a.ok());
    REQUIRE(a->status == 0);
  }
  auto mc = [&](uint8_t method, uint64_t mask) {
    McMemberRecord t;
    t.mgid = app_mgid;
    t.port_gid = my_gid;
    t.join_state = js::full_member;
    t.p_key = 0xFFFF;
    auto a = b.call(test::sa_request(method, wire::sa_attr::mc_member_record, mask, t, wire::sa_record_size::mc_member));
    REQUIRE(a.ok());
    REQUIRE(a->status == 0);
  };
  // The Reports the agent sent since the last look (the client's calls take
  // whatever reaches its port, so look at the agent's side).
  size_t seen = 0;
  auto reports = [&] {
    std::vector<wire::Notice> notices;
    for (; seen < b.sent_by_agent.size(); ++seen) {
      const MadPacket& p = b.sent_by_agent[seen];
      if (wire::get_field(p.data, wire::mad_fields::method) != wire::method::report) continue;
      CHECK(p.address.lid == client_lid);
      notices.push_back(decoded(wire::decode_notice(std::span<const uint8_t>(p.data).subspan(wire::sa_data_offset))));
    }
    return notices;
  };
  mc(wire::method::set, create_mask);
  auto created = reports();
  REQUIRE(created.size() == 1);
  CHECK(created[0].trap_number == wire::trap_number::mcast_group_created);
  CHECK(sa::notice_details_gid(created[0]) == app_mgid);
  CHECK(created[0].issuer_lid == b.sm_lid());
  CHECK(b.agent->multicast().find(app_mgid) != nullptr);
  CHECK(b.agent->take_multicast_changes() == std::vector<Lid>{Lid{0xC000}, Lid{0xC001}});

  mc(wire::method::delete_, join_mask);
  auto deleted = reports();
  REQUIRE(deleted.size() == 1);
  CHECK(deleted[0].trap_number == wire::trap_number::mcast_group_deleted);
  CHECK(sa::notice_details_gid(deleted[0]) == app_mgid);
  CHECK(b.agent->take_multicast_changes() == std::vector<Lid>{Lid{0xC001}});
}

TEST_CASE("SA agent: groups imported before the first snapshot are installed with it", "[sa][multicast]") {
  test::SweepHarness h(test::must(topogen::kary_ntree({.k = 2, .n = 2})));
  auto snapshot = std::make_shared<sa::SaSnapshot>(test::swept_snapshot(h));
  const sa::EndPort& port = snapshot->endports.back();
  McMemberRecord r;
  r.mgid = app_mgid;
  r.port_gid = sa::port_gid(*snapshot, port);
  r.mlid = Lid{0xC007};
  r.q_key = 0x22;
  r.p_key = 0xFFFF;
  r.join_state = js::full_member;
  sa::SaRegistrations regs;
  regs.multicast = {r};
  sa::SaAgent agent([](const MadPacket&) {});
  const sa::SaImportResult result = agent.import(regs, 0);
  CHECK(result.multicast_deferred);
  CHECK(agent.multicast().size() == 0);
  agent.set_snapshot(snapshot, 0);
  const sa::McGroup* g = agent.multicast().find(app_mgid);
  REQUIRE(g != nullptr);
  CHECK(g->properties.mlid == Lid{0xC007});
  CHECK(agent.multicast().members(Lid{0xC007}) == std::vector<PortRef>{port.ref});
  CHECK(agent.multicast().find(broadcast)->properties.mlid == Lid{0xC000});  // predefined, at a free MLID
  // set_partitions with no ipoib partition: the broadcast group goes (no members).
  auto conf = std::make_shared<PartitionConfig>();
  agent.set_partitions(conf, 0);
  CHECK(agent.multicast().find(broadcast) == nullptr);
  CHECK(agent.multicast().size() == 1);
}
