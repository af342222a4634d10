// A restart over SimFabric in virtual time (issue 13, "state is lost across
// a restart"): the SA's registrations saved by one manager and restored into
// the next, what the restore drops, and a restart without any cache that
// reads the switches' tables instead of setting them.
#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/gid_text.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa/service_record.h"
#include "sa/client.h"
#include "sa/registrations_codec.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

constexpr int64_t kSavedAtMs = 1'764'634'474'000;  // any wall clock: the codec takes it as given

// A client at one CA port asking the SA of the SM at `sm`.
struct SaUser {
  FailoverBench& b;
  PortRef at;
  SimPort& port;
  wire::Gid gid;
  SaUser(FailoverBench& bench, PortRef where)
      : b(bench), at(where), port(bench.sim().attach(where.node, where.port)),
        gid(wire::Gid::from_parts(SmConfig{}.subnet_prefix, port_guid(bench.sim().topology(), where).value)) {}
  ~SaUser() { b.sim().detach(port); }

  sa::SaAnswer ask(size_t sm, uint8_t method, uint16_t attribute, uint64_t mask, std::vector<uint8_t> data,
                   uint64_t sm_key = 0) {
    sa::SaRequest r;
    r.method = method;
    r.attribute = attribute;
    r.component_mask = mask;
    r.sm_key = sm_key;
    r.data = std::move(data);
    auto a = sa::run_sa_call(port, b.sim().clock(), sa::sa_address(b.sim().port_lid(b.sm(sm).where)), r);
    REQUIRE(a.ok());
    CHECK(a->status == 0);
    return *a;
  }
  void register_service(size_t sm, uint64_t id, uint32_t lease) {
    wire::ServiceRecord svc;
    svc.service_id = id;
    svc.service_gid = gid;
    svc.service_p_key = wire::default_p_key;
    svc.service_lease = lease;
    svc.set_name("persisted");
    std::vector<uint8_t> data(wire::sa_record_size::service, 0);
    wire::encode(svc, data);
    namespace f = wire::service_record_fields;
    uint64_t mask = 0;
    for (const wire::Field* fld : {&f::service_id, &f::service_gid, &f::service_p_key, &f::service_lease,
                                   &f::service_name})
      mask |= wire::component_bit(wire::service_record_components, *fld);
    ask(sm, wire::method::set, wire::sa_attr::service_record, mask, data);
  }
  void subscribe(size_t sm) {
    wire::InformInfo ii;
    ii.lid_range_begin = Lid{wire::inform_all_lids};
    ii.is_generic = 1;
    ii.subscribe = 1;
    ii.type = wire::inform_all_types;
    ii.trap_number = wire::trap_number::gid_out_of_service;
    ii.qpn = 1;
    ii.resp_time_value = 17;
    ii.producer_type = wire::inform_all_producer_types;
    std::vector<uint8_t> data(wire::sa_record_size::inform_info, 0);
    wire::encode(ii, data);
    ask(sm, wire::method::set, wire::sa_attr::inform_info, 0, data);
  }
  // Creates the group `mgid` as its full member.
  void create_group(size_t sm, const wire::Gid& mgid) {
    sa::SaRequest join = sa::full_member_join(mgid, gid);
    wire::McMemberRecord r = *wire::decode_mc_member_record(join.data);
    r.q_key = 0x1234;
    wire::encode(r, join.data);
    namespace f = wire::mc_member_record_fields;
    uint64_t mask = join.component_mask;
    for (const wire::Field* fld : {&f::q_key, &f::sl, &f::flow_label, &f::tclass})
      mask |= wire::component_bit(wire::mc_member_record_components, *fld);
    ask(sm, wire::method::set, wire::sa_attr::mc_member_record, mask, join.data);
  }

  template <typename R>
  std::vector<R> table(size_t sm, uint16_t attribute, size_t size, Result<R> (*decode)(std::span<const uint8_t>)) {
    sa::SaAnswer a = ask(sm, wire::method::get_table, attribute, 0, {}, SmConfig{}.sm_key);
    std::vector<R> out;
    for (size_t i = 0; i < a.record_count(); ++i) {
      auto r = decode(a.record(i).first(size));
      REQUIRE(r.ok());
      out.push_back(*r);
    }
    return out;
  }
  std::vector<wire::ServiceRecord> services(size_t sm) {
    return table(sm, wire::sa_attr::service_record, wire::sa_record_size::service, wire::decode_service_record);
  }
  std::vector<wire::InformInfoRecord> subscriptions(size_t sm) {
    return table(sm, wire::sa_attr::inform_info_record, wire::sa_record_size::inform_info,
                 wire::decode_inform_info_record);
  }
  std::vector<wire::McMemberRecord> members(size_t sm) {
    return table(sm, wire::sa_attr::mc_member_record, wire::sa_record_size::mc_member, wire::decode_mc_member_record);
  }
};

bool has_service(const std::vector<wire::ServiceRecord>& all, uint64_t id) {
  return std::any_of(all.begin(), all.end(), [&](const wire::ServiceRecord& r) { return r.service_id == id; });
}

size_t subscriptions_of(const std::vector<wire::InformInfoRecord>& all, const wire::Gid& gid) {
  return static_cast<size_t>(
      std::count_if(all.begin(), all.end(), [&](const wire::InformInfoRecord& r) { return r.subscriber_gid == gid; }));
}

// LFT blocks the switches were sent, LID-routed and directed.
uint64_t lft_sets(const SimFabric& sim) {
  const SimCounters& c = sim.counters();
  return c.received(wire::mgmt_class::subn_lid_routed, wire::method::set, wire::smp_attr::linear_forwarding_table) +
         c.received(wire::mgmt_class::subn_directed_route, wire::method::set, wire::smp_attr::linear_forwarding_table);
}

TEST_CASE("a restarted master serves the services, subscriptions and groups its cache kept",
          "[manager][persist][sa]") {
  FailoverBench b(small_fabric());
  const std::vector<PortRef> cas = ca_ports(b.sim().topology());
  const SmConfig config = b.config(10);
  start_master(b, config);
  const size_t sm = 0;
  SaUser user(b, cas[3]);
  auto leaver = std::make_unique<SaUser>(b, cas[4]);  // its port is unplugged while the SM is down
  const wire::Gid mgid{*wire::parse_gid("ff15:1234::1")};

  user.register_service(sm, 0xA1, wire::service_lease_infinite);
  user.register_service(sm, 0xA2, 30);  // 30 s: outlives the 10 s the SM is down
  user.register_service(sm, 0xA3, 5);   // 5 s: runs out while it is down
  user.subscribe(sm);
  leaver->subscribe(sm);
  user.create_group(sm, mgid);
  b.run_for(kSecond);  // the group's tree is programmed
  const sa::McGroup* before = b.manager(sm).sa().multicast().find(mgid);
  REQUIRE(before != nullptr);
  const Lid mlid = before->properties.mlid;

  // The save, as the daemon makes it at stop; then the process dies.
  const Micros saved_at = b.sim().now();
  const sa::SaRegistrations held = b.manager(sm).sa().registrations(saved_at);
  REQUIRE(held.services.size() == 3);
  const std::string bytes = sa::encode_registrations(held, kSavedAtMs);
  b.kill(sm);
  REQUIRE(b.sim().set_link(cas[4], false).ok());
  leaver.reset();

  // A new process at the same port, 10 s of wall clock later, with the saved bytes.
  auto saved = sa::decode_registrations(bytes, "cache/ibsm-sa-registrations");
  REQUIRE(saved.ok());
  sa::RestoredRegistrations restored = sa::restore_registrations(std::move(*saved), kSavedAtMs + 10'000);
  CHECK(restored.expired_services == 1);  // 0xA3
  const size_t again = b.start(cas[0], config);
  REQUIRE(again == sm);
  const sa::SaImportResult imported = b.manager(sm).sa().import(std::move(restored.registrations), b.sim().now());
  CHECK(imported.services.installed == 2);
  CHECK(imported.subscriptions_deferred);  // their subscribers are found in the first snapshot
  const Micros restarted_at = b.sim().now();
  REQUIRE(b.run_until_true([&] { return b.manager(sm).is_master() && b.manager(sm).subnet_up(); }, 3 * kSecond));
  b.run_for(kSecond);

  std::vector<wire::ServiceRecord> services = user.services(sm);
  CHECK(has_service(services, 0xA1));
  CHECK(has_service(services, 0xA2));
  CHECK_FALSE(has_service(services, 0xA3));
  const std::vector<wire::InformInfoRecord> subs = user.subscriptions(sm);
  CHECK(subscriptions_of(subs, user.gid) == 1);
  CHECK(subs.size() == 1);  // the unplugged port's subscription was dropped
  const sa::McGroup* after = b.manager(sm).sa().multicast().find(mgid);
  REQUIRE(after != nullptr);
  CHECK(after->properties.mlid == mlid);  // the switches' MFTs still name it
  CHECK(after->members.count(port_guid(b.sim().topology(), cas[3]).value) == 1);
  const std::vector<wire::McMemberRecord> members = user.members(sm);
  CHECK(std::any_of(members.begin(), members.end(),
                    [&](const wire::McMemberRecord& r) { return r.mgid == mgid && r.port_gid == user.gid; }));

  // The 30 s lease goes on from what was left at the save, less the 10 s down.
  const Micros left = *held.service_lease_left[1] - 10 * kSecond;
  b.run_until(restarted_at + left - kSecond);
  CHECK(has_service(user.services(sm), 0xA2));
  b.run_until(restarted_at + left + kSecond);
  CHECK_FALSE(has_service(user.services(sm), 0xA2));
  CHECK(has_service(user.services(sm), 0xA1));
}

TEST_CASE("a master restarted without any cache reads the switches' tables and sets no LFT block",
          "[manager][persist]") {
  FailoverBench b(small_fabric());
  const std::vector<PortRef> cas = ca_ports(b.sim().topology());
  const SmConfig config = b.config(10);
  start_master(b, config);
  REQUIRE(lft_sets(b.sim()) > 0);
  const std::vector<uint16_t> lids = b.lids();
  b.kill(0);

  b.sim().reset_counters();
  b.start(cas[0], config);  // SweepState{}: no guid2lid, no memory of any table
  REQUIRE(b.run_until_true([&] { return b.manager(0).is_master() && b.manager(0).subnet_up(); }, 3 * kSecond));
  CHECK(lft_sets(b.sim()) == 0);
  const SimCounters& c = b.sim().counters();
  CHECK(c.received(wire::mgmt_class::subn_directed_route, wire::method::get, wire::smp_attr::linear_forwarding_table) +
            c.received(wire::mgmt_class::subn_lid_routed, wire::method::get, wire::smp_attr::linear_forwarding_table) >
        0);
  CHECK(b.manager(0).last_sweep()->lft_blocks_sent == 0);
  CHECK(b.lids() == lids);
}

// How the cache and the mirror combine: the cache is what a master that
// restarts starts from; a standby that takes over serves its copy of the
// master's SA instead, which replaces whatever it held.
TEST_CASE("a standby that takes over serves what it mirrored of the master, not what its cache held",
          "[manager][persist][sa]") {
  Pair p(10, 5);
  SaUser user(p.b, p.cas[3]);
  sa::SaRegistrations stale;
  wire::ServiceRecord old;
  old.service_id = 0xB0;
  old.service_gid = user.gid;
  old.service_p_key = wire::default_p_key;
  old.service_lease = wire::service_lease_infinite;
  stale.services = {old};
  (void)p.b.manager(p.c).sa().import(stale, p.b.sim().now());  // the standby's cache, from an earlier life

  user.register_service(p.a, 0xB1, wire::service_lease_infinite);
  p.b.run_for(2 * kSecond);  // the standby's polls read the master's SA
  REQUIRE(p.b.manager(p.c).mirror().counters().reads_ok > 0);
  p.b.kill(p.a);
  REQUIRE(p.b.run_until_true([&] { return p.b.manager(p.c).is_master(); }, 10 * kSecond));
  p.b.run_for(kSecond);
  const std::vector<wire::ServiceRecord> services = user.services(p.c);
  CHECK(has_service(services, 0xB1));
  CHECK_FALSE(has_service(services, 0xB0));
}

}  // namespace
}  // namespace ibsm::test
