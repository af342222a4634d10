// The SM state machine over SimFabric in virtual time, with two and three
// SMs: election, handover to a higher SM that joins, takeover when the
// master dies, freezes or loses its link, a split fabric joined again, a
// flapping master, SM_Key refusals, and the SA's services on the new master.
#include <catch2/catch.hpp>

#include "mad/wire/response.h"
#include "mad/wire/smp.h"
#include "sa/client.h"
#include "mad/wire/sa/service_record.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

using st = SmState;


TEST_CASE("two or three sms elect one master by priority, then the lower guid", "[manager][failover]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  const size_t low = b.start(cas[0], 5);
  const size_t high1 = b.start(cas[1], 10);
  const size_t high2 = b.start(cas[2], 10);
  b.run_for(5 * kSecond);
  REQUIRE(b.masters() == 1);
  const Fabric& f = b.sim().topology();
  const size_t winner = port_guid(f, cas[1]).value < port_guid(f, cas[2]).value ? high1 : high2;
  CHECK(b.master() == winner);
  for (size_t i : {low, high1, high2}) {
    if (i == winner) continue;
    CHECK(b.manager(i).state() == st::standby);
    REQUIRE(b.manager(i).master());
    CHECK(b.manager(i).master()->port_guid == port_guid(f, b.sm(winner).where));
    CHECK(b.manager(i).counters().polls_sent > 0);
    CHECK(b.manager(i).counters().polls_failed == 0);
  }
  CHECK(b.manager(winner).subnet_up());
  // Every port's MasterSMLID names the winner.
  const Lid winner_lid = b.sim().port_lid(b.sm(winner).where);
  for (PortRef p : cas) CHECK(b.sim().state().port(p.node.value, p.port).master_sm_lid == winner_lid.value);
}

TEST_CASE("a higher sm that joins gets the mastership by HANDOVER and ACKNOWLEDGE", "[manager][failover]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  const size_t old_master = b.start(cas[0], 5);
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == old_master);
  const auto lids = b.lids();
  const size_t joiner = b.start(cas[1], 12);
  REQUIRE(b.run_until_true([&] { return b.master() == joiner && b.manager(old_master).state() == st::standby; },
                           10 * kSecond));
  CHECK(b.masters() == 1);
  CHECK(b.manager(old_master).counters().handovers_sent == 1);
  CHECK(b.manager(old_master).counters().acknowledges_received == 1);
  CHECK(b.manager(joiner).counters().handovers_received == 1);
  CHECK(b.manager(joiner).counters().takeovers == 0);
  // The old master went STANDBY only on the ACKNOWLEDGE, after the joiner was MASTER.
  REQUIRE(b.entered(joiner, st::master));
  CHECK(*b.entered(old_master, st::standby) >= *b.entered(joiner, st::master));
  b.run_for(2 * kSecond);
  CHECK(b.lids() == lids);
  REQUIRE(b.manager(joiner).last_sweep());
  CHECK(b.manager(joiner).last_sweep()->lft_blocks_sent == 0);
  CHECK(b.manager(joiner).last_sweep()->lft_blocks_read > 0);
}

TEST_CASE("the standby takes over within 2 s when the master dies, freezes or loses its link", "[manager][failover]") {
  Pair p(10, 5);
  REQUIRE(p.b.master() == p.a);
  const auto lids = p.b.lids();
  const Micros t0 = p.b.sim().now();
  bool fabric_unchanged = true;
  SECTION("killed") { p.b.kill(p.a); }
  SECTION("frozen") { p.b.freeze(p.a); }
  SECTION("its cable pulled") {
    p.b.cut(p.a);
    fabric_unchanged = false;  // a CA left: the routes to its LID go
  }
  REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).is_master(); }, 10 * kSecond));
  const Micros took = *p.b.entered(p.c, st::master) - t0;
  INFO("takeover after " << took << " us");
  CHECK(took < 2 * kSecond);
  CHECK(p.b.manager(p.c).counters().takeovers == 1);
  p.b.run_for(kSecond);
  REQUIRE(p.b.manager(p.c).last_sweep());
  // The new master's subnet: its own LID as the SM's, every LID as before.
  REQUIRE(p.b.manager(p.c).subnet());
  CHECK(p.b.manager(p.c).subnet()->sm_lid == p.b.sim().port_lid(p.cas[1]));
  if (fabric_unchanged) {
    CHECK(p.b.manager(p.c).last_sweep()->lft_blocks_sent == 0);  // no LFT block set again
    CHECK(p.b.manager(p.c).last_sweep()->lft_blocks_read > 0);
  }
  const auto now = p.b.lids();
  // Every LID where it was; the dead master's own port keeps its LID too.
  CHECK(now == lids);
}

TEST_CASE("a master that comes back after a takeover settles to one master", "[manager][failover]") {
  Pair p(10, 5);
  SECTION("thawed") {
    p.b.freeze(p.a);
    REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).is_master(); }, 10 * kSecond));
    p.b.freeze(p.a, false);
  }
  SECTION("cable replugged") {
    p.b.cut(p.a);
    REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).is_master(); }, 10 * kSecond));
    p.b.cut(p.a, false);
  }
  SECTION("restarted") {
    p.b.kill(p.a);
    REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).is_master(); }, 10 * kSecond));
    p.b.start(p.cas[0], 10);
  }
  p.b.run_for(10 * kSecond);
  CHECK(p.b.masters() == 1);
  // The higher SM is master again, and the other follows it.
  CHECK(p.b.master() == p.a);
  CHECK(p.b.manager(p.c).state() == st::standby);
}

TEST_CASE("with elevated_priority the master keeps the role when a higher sm comes back", "[manager][failover]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  SmConfig sticky = b.config(5);
  sticky.elevated_priority = 15;
  const size_t a = b.start(cas[0], sticky);
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == a);
  CHECK(b.manager(a).sm_info().priority == 15);
  const size_t higher = b.start(cas[1], 12);
  b.run_for(10 * kSecond);
  CHECK(b.master() == a);
  CHECK(b.manager(higher).state() == st::standby);
  CHECK(b.manager(a).counters().handovers_sent == 0);
}

TEST_CASE("a split fabric with a master in each half settles to one master when joined", "[manager][failover]") {
  // Two leaves, one spine: leaf 1's cable to the spine splits the fabric.
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2})));
  const Fabric& f = b.sim().topology();
  auto cas = ca_ports(f);
  std::optional<PortRef> bridge;
  for (const Link& l : f.links())
    if (f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch() && !bridge) bridge = l.a;
  REQUIRE(bridge);
  REQUIRE(b.sim().set_link(*bridge, false).ok());
  // One SM on each side of the cut: the first CA and the last.
  const size_t a = b.start(cas.front(), 7);
  const size_t c = b.start(cas.back(), 7);
  b.run_for(3 * kSecond);
  REQUIRE(b.masters() == 2);
  REQUIRE(b.sim().set_link(*bridge, true).ok());
  b.run_for(15 * kSecond);
  CHECK(b.masters() == 1);
  const size_t winner = port_guid(f, cas.front()).value < port_guid(f, cas.back()).value ? a : c;
  const size_t loser = winner == a ? c : a;
  CHECK(b.master() == winner);
  CHECK(b.manager(loser).state() == st::standby);
  CHECK(b.manager(winner).subnet_up());
}

TEST_CASE("a flapping master leaves one master and every lid where it was", "[manager][failover]") {
  Pair p(10, 5);
  const auto lids = p.b.lids();
  for (int i = 0; i < 6; ++i) {
    p.b.cut(p.a);
    p.b.run_for(i % 2 ? 300'000 : 1'500'000);  // some shorter than a takeover, some longer
    p.b.cut(p.a, false);
    p.b.run_for(700'000);
  }
  p.b.run_for(15 * kSecond);
  CHECK(p.b.masters() == 1);
  CHECK(p.b.master() == p.a);
  CHECK(p.b.lids() == lids);
}

// An SMInfo Set from a client that is no SM, LID-routed to `to`.
uint16_t send_sm_info_set(FailoverBench& b, PortRef from, PortRef to, uint32_t modifier, uint64_t key) {
  SimPort& port = b.sim().attach(from.node, from.port);
  MadDispatcher d(port, b.sim().clock());
  wire::SmInfo sender;
  sender.guid = Guid{0x1234};
  sender.sm_key = key;
  sender.sm_state = wire::sm_state::master;
  std::array<uint8_t, wire::smp_data_size> payload{};
  wire::encode(sender, payload);
  MadPacket p;
  p.data = wire::build_lid_smp(wire::method::set, wire::smp_attr::sm_info, modifier, 0, payload);
  p.address.lid = b.sim().port_lid(to);
  uint16_t status = 0xFFFF;
  d.submit(p, [&status, key](Result<MadPacket> r) {
    REQUIRE(r.ok());
    auto smp = wire::parse_smp(r->data);
    REQUIRE(smp.ok());
    status = smp->status();
    auto info = wire::decode_sm_info(smp->data());
    REQUIRE(info.ok());
    CHECK(info->sm_key == (key == 1 ? 1u : 0u));  // the key only to who knows it
  });
  d.run_until_idle();
  b.sim().detach(port);
  return status;
}

TEST_CASE("an SMInfo Set with the wrong SM_Key is refused and counted", "[manager][failover]") {
  Pair p(10, 5);  // both with the default SM_Key 1
  const PortRef client = p.cas[3];
  const PortRef standby = p.cas[1];
  CHECK(send_sm_info_set(p.b, client, standby, wire::sm_info_control::handover, 0x99) ==
        wire::mad_status::invalid_field);
  CHECK(send_sm_info_set(p.b, client, standby, wire::sm_info_control::disable, 0) == wire::mad_status::invalid_field);
  CHECK(p.b.manager(p.c).sm_agent().counters().sm_key_refusals == 2);
  CHECK(p.b.manager(p.c).state() == st::standby);
  // With the key, DISABLE is taken: the standby goes NOT ACTIVE and stays there.
  CHECK(send_sm_info_set(p.b, client, standby, wire::sm_info_control::disable, 1) == wire::mad_status::ok);
  CHECK(p.b.manager(p.c).state() == st::not_active);
  p.b.kill(p.a);
  p.b.run_for(5 * kSecond);
  CHECK(p.b.masters() == 0);
  CHECK(p.b.manager(p.c).state() == st::not_active);
}

}  // namespace
}  // namespace ibsm::test

namespace ibsm::test {
namespace {

sa::SaRequest record_request(uint8_t method, uint16_t attribute, uint64_t mask, std::vector<uint8_t> data,
                             uint64_t sm_key = 0) {
  sa::SaRequest r;
  r.method = method;
  r.attribute = attribute;
  r.component_mask = mask;
  r.sm_key = sm_key;
  r.data = std::move(data);
  return r;
}

TEST_CASE("services and subscriptions registered with the old master are served by the new one",
          "[manager][failover][sa]") {
  Pair p(10, 5);
  const Fabric& f = p.b.sim().topology();
  const PortRef at = p.cas[3];
  SimPort& client = p.b.sim().attach(at.node, at.port);
  const wire::Gid gid = wire::Gid::from_parts(0xfe80000000000000ULL, port_guid(f, at).value);
  auto ask = [&](size_t sm, sa::SaRequest r) {
    auto a = sa::run_sa_call(client, p.b.sim().clock(), sa::sa_address(p.b.sim().port_lid(p.b.sm(sm).where)), r);
    REQUIRE(a.ok());
    CHECK(a->status == 0);
    return *a;
  };

  wire::ServiceRecord svc;
  svc.service_id = 0xABCD;
  svc.service_gid = gid;
  svc.service_p_key = 0xFFFF;
  svc.service_lease = wire::service_lease_infinite;
  svc.set_name("failover-test");
  std::vector<uint8_t> data(wire::sa_record_size::service, 0);
  wire::encode(svc, data);
  namespace srf = wire::service_record_fields;
  uint64_t mask = 0;
  for (const wire::Field* fld : {&srf::service_id, &srf::service_gid, &srf::service_p_key, &srf::service_lease,
                                 &srf::service_name})
    mask |= wire::component_bit(wire::service_record_components, *fld);
  ask(p.a, record_request(wire::method::set, wire::sa_attr::service_record, mask, data));

  wire::InformInfo ii;
  ii.lid_range_begin = Lid{wire::inform_all_lids};
  ii.is_generic = 1;
  ii.subscribe = 1;
  ii.type = wire::inform_all_types;
  ii.trap_number = wire::trap_number::gid_out_of_service;
  ii.qpn = 1;
  ii.resp_time_value = 17;
  ii.producer_type = wire::inform_all_producer_types;
  std::vector<uint8_t> sub(wire::sa_record_size::inform_info, 0);
  wire::encode(ii, sub);
  ask(p.a, record_request(wire::method::set, wire::sa_attr::inform_info, 0, sub));

  p.b.run_for(2 * kSecond);  // the standby's polls read the master's SA
  CHECK(p.b.manager(p.c).mirror().counters().reads_ok > 0);
  p.b.kill(p.a);
  REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).is_master(); }, 10 * kSecond));
  p.b.run_for(kSecond);

  auto services = ask(p.c, record_request(wire::method::get_table, wire::sa_attr::service_record, 0, {}));
  bool found = false;
  for (size_t i = 0; i < services.record_count(); ++i) {
    auto r = wire::decode_service_record(services.record(i).first(wire::sa_record_size::service));
    REQUIRE(r.ok());
    if (r->service_id == svc.service_id) {
      found = true;
      CHECK(r->service_gid == gid);
      CHECK(r->name() == "failover-test");
    }
  }
  CHECK(found);
  auto subs = ask(p.c, record_request(wire::method::get_table, wire::sa_attr::inform_info_record, 0, {}, 1));
  size_t mine = 0;
  for (size_t i = 0; i < subs.record_count(); ++i) {
    auto r = wire::decode_inform_info_record(subs.record(i).first(wire::sa_record_size::inform_info));
    REQUIRE(r.ok());
    if (r->subscriber_gid == gid && r->inform_info.trap_number == wire::trap_number::gid_out_of_service) ++mine;
  }
  CHECK(mine == 1);
  p.b.sim().detach(client);
}

}  // namespace
}  // namespace ibsm::test

namespace ibsm::test {
namespace {

// A client's SMInfo Get with an empty SMInfo (as sminfo and OpenSM send
// it), LID-routed to `to`; the SM_Key the answer carries.
uint64_t sm_key_read_by(FailoverBench& b, SimPort& port, PortRef to) {
  MadDispatcher d(port, b.sim().clock());
  MadPacket p;
  p.data = wire::build_lid_smp(wire::method::get, wire::smp_attr::sm_info, 0, 0);
  p.address.lid = b.sim().port_lid(to);
  uint64_t key = 0xDEAD;
  d.submit(p, [&key](Result<MadPacket> r) {
    REQUIRE(r.ok());
    auto smp = wire::parse_smp(r->data);
    REQUIRE(smp.ok());
    auto info = wire::decode_sm_info(smp->data());
    REQUIRE(info.ok());
    key = info->sm_key;
  });
  d.run_until_idle();
  return key;
}

TEST_CASE("the SM_Key is read only by SM ports, even from an empty SMInfo Get", "[manager][failover]") {
  Pair p(10, 5);
  SimPort& client = p.b.sim().attach(p.cas[3].node, p.cas[3].port);
  CHECK(sm_key_read_by(p.b, client, p.cas[0]) == 0);  // a tool: no key
  // The port starts an SM: its Get comes before the master's next sweep has
  // seen IsSM, so the master reads the port's PortInfo first.
  client.set_is_sm(true);
  CHECK(sm_key_read_by(p.b, client, p.cas[0]) == 1);
  client.set_is_sm(false);
  CHECK(sm_key_read_by(p.b, client, p.cas[0]) == 0);
  p.b.sim().detach(client);
}

// An SM that takes a HANDOVER and becomes master without sending the
// ACKNOWLEDGE, as OpenSM 3.3.23 does: priority 14, STANDBY until handed over.
struct SilentNewMaster {
  SimPort& port;
  MadDispatcher d;
  uint8_t state = wire::sm_state::standby;
  SilentNewMaster(FailoverBench& b, PortRef at) : port(b.sim().attach(at.node, at.port)), d(port, b.sim().clock()) {
    port.set_is_sm(true);
    d.set_request_handler([this](const MadPacket& req) {
      auto smp = wire::parse_smp(req.data);
      if (!smp.ok() || smp->attr_id() != wire::smp_attr::sm_info) return;
      if (smp->method() == wire::method::set && smp->attr_mod() == wire::sm_info_control::handover)
        state = wire::sm_state::master;
      wire::SmInfo me;
      me.guid = port.local_port().port_guid;
      me.sm_key = 1;
      me.priority = 14;
      me.sm_state = state;
      MadPacket out;
      out.data = wire::make_get_response(req.data);
      wire::encode(me, wire::smp_data(out.data));
      out.address = req.address;
      (void)d.send_now(out);
    });
    port.set_service([this] { d.poll(); });
  }
};

TEST_CASE("a master that hands over to an SM that sends no ACKNOWLEDGE follows it once it is MASTER",
          "[manager][failover]") {
  FailoverBench b(small_fabric());
  auto cas = ca_ports(b.sim().topology());
  const size_t a = b.start(cas[0], 5);
  b.run_for(3 * kSecond);
  REQUIRE(b.master() == a);
  SilentNewMaster other(b, cas[1]);
  const bool followed = b.run_until_true([&] { return b.manager(a).state() == st::standby; }, 10 * kSecond);
  const auto& c = b.manager(a).counters();
  INFO("heavy " << c.heavy_sweeps << " light " << c.light_sweeps << " others " << b.manager(a).other_sms().size()
                << " handovers " << c.handovers_sent << " timeouts " << c.handover_timeouts << " traps "
                << b.manager(a).sm_agent().counters().traps << " unack " << c.handovers_unacknowledged << " polls "
                << c.polls_sent << "/" << c.polls_failed << " states " << b.sm(a).states.size());
  REQUIRE(followed);
  CHECK(other.state == wire::sm_state::master);
  CHECK(b.manager(a).counters().handovers_sent == 1);
  CHECK(b.manager(a).counters().handovers_unacknowledged == 1);
  CHECK(b.manager(a).counters().acknowledges_received == 0);
  REQUIRE(b.manager(a).master());
  CHECK(b.manager(a).master()->port_guid == other.port.local_port().port_guid);
  // It stays a standby that polls the new master, which answers.
  b.run_for(5 * kSecond);
  CHECK(b.manager(a).state() == st::standby);
  CHECK(b.manager(a).counters().polls_failed == 0);
}

}  // namespace
}  // namespace ibsm::test

namespace ibsm::test {
namespace {

TEST_CASE("a standby whose priority is raised (SIGHUP) gets the mastership from the master's light sweep",
          "[manager][failover]") {
  Pair p(10, 5);
  REQUIRE(p.b.master() == p.a);
  SmConfig raised = p.b.config(14);
  p.b.manager(p.c).reconfigure(raised);
  CHECK(p.b.manager(p.c).sm_info().priority == 14);
  REQUIRE(p.b.run_until_true([&] { return p.b.master() == p.c && p.b.manager(p.a).state() == st::standby; },
                             10 * kSecond));
  CHECK(p.b.manager(p.a).counters().handovers_sent == 1);
  // And lowered again below the other: back to it.
  p.b.manager(p.c).reconfigure(p.b.config(2));
  REQUIRE(p.b.run_until_true([&] { return p.b.master() == p.a; }, 10 * kSecond));
  CHECK(p.b.masters() == 1);
}

}  // namespace
}  // namespace ibsm::test
