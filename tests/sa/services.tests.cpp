// The ServiceRecord registry: register, find, replace and delete; leases
// that end on time even before expire() runs; only the owner (or an SM_Key
// holder) may change a record; component-mask matching against a naive
// filter; a bounded table.
#include "sa/service_records.h"

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "sa/partition_access.h"
#include "sm/topogen/prng.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::decoded;

namespace {

// ComponentMask bits of ServiceRecord (IBA 15.2.5.14).
using namespace test::service_mask;
constexpr uint64_t c_data8_0 = 1ULL << 7, c_data16_0 = 1ULL << 23;
using test::second;

struct Fixture {
  sa::SaSnapshot s = test::offline_snapshot(test::two_port_hca_fabric());
  // The CA ports, ascending GUID.
  std::vector<const sa::EndPort*> cas;
  Fixture() {
    for (const sa::EndPort& e : s.endports)
      if (!s.fabric.node(e.ref.node).is_switch()) cas.push_back(&e);
    REQUIRE(cas.size() == 4);
  }
  wire::Gid gid(size_t i) const { return sa::port_gid(s, *cas[i]); }
  Lid lid(size_t i) const { return cas[i]->base_lid; }
};

wire::ServiceRecord service(uint64_t id, const wire::Gid& gid, uint32_t lease, std::string_view name) {
  wire::ServiceRecord r;
  r.service_id = id;
  r.service_gid = gid;
  r.service_lease = lease;
  r.set_name(name);
  r.service_key[0] = 0xAB;
  r.service_key[15] = 0xCD;
  return r;
}

sa::SaQueryResult run(sa::ServiceRegistry& reg, const sa::SaSnapshot& s, uint8_t method, uint64_t mask,
                      const wire::ServiceRecord& tmpl, Lid requester, Micros now = 0, bool trusted = false) {
  auto e = test::encoded_query(method, wire::sa_attr::service_record, mask, tmpl, wire::sa_record_size::service, requester,
                               trusted);
  return reg.handle(s, e.query, now);
}

wire::ServiceRecord service_record(const sa::SaQueryResult& r, size_t i) {
  REQUIRE(i < r.count);
  return decoded(wire::decode_service_record(r.record(i)));
}


}  // namespace

TEST_CASE("service records are registered, found, replaced and deleted", "[sa][services]") {
  Fixture f;
  sa::ServiceRegistry reg;
  auto a = service(0x10, f.gid(0), 60, "alpha");

  auto set = run(reg, f.s, wire::method::set, set_mask, a, f.lid(0));
  REQUIRE(set.status == 0);
  REQUIRE(set.count == 1);
  CHECK(set.attr_offset == 22);
  auto stored = service_record(set, 0);
  CHECK(stored.name() == "alpha");
  CHECK(stored.service_lease == 60);
  CHECK(stored.service_p_key == 0xFFFF);                  // not selected: the default P_Key
  CHECK(stored.service_key == wire::ServiceRecord{}.service_key);  // hidden from an untrusted requester
  CHECK(reg.size() == 1);

  // Found by name (GetTable) and by ID (Get), by another port too.
  auto by_name = run(reg, f.s, wire::method::get_table, c_name, service(0, {}, 0, "alpha"), f.lid(3));
  REQUIRE(by_name.status == 0);
  REQUIRE(by_name.count == 1);
  CHECK(service_record(by_name, 0).service_id == 0x10);
  auto by_id = run(reg, f.s, wire::method::get, c_id, service(0x10, {}, 0, ""), f.lid(3));
  REQUIRE(by_id.status == 0);
  CHECK(service_record(by_id, 0).name() == "alpha");

  // The same identity replaces; another ServiceID adds.
  auto a2 = service(0x10, f.gid(0), 60, "alpha-2");
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, a2, f.lid(0)).status == 0);
  CHECK(reg.size() == 1);
  CHECK(service_record(run(reg, f.s, wire::method::get, c_id, a2, f.lid(0)), 0).name() == "alpha-2");
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, service(0x08, f.gid(0), 60, "beta"), f.lid(0)).status == 0);
  CHECK(reg.size() == 2);

  // GetTable with no mask: every record, ServiceID order.
  auto all = run(reg, f.s, wire::method::get_table, 0, {}, f.lid(1));
  REQUIRE(all.count == 2);
  CHECK(service_record(all, 0).service_id == 0x08);
  CHECK(service_record(all, 1).service_id == 0x10);
  // Get of two: too many; of none: no records; GetTable of none: empty success.
  CHECK(run(reg, f.s, wire::method::get, 0, {}, f.lid(1)).status == wire::sa_status::too_many_records);
  CHECK(run(reg, f.s, wire::method::get, c_id, service(0x99, {}, 0, ""), f.lid(1)).status ==
        wire::sa_status::no_records);
  auto none = run(reg, f.s, wire::method::get_table, c_id, service(0x99, {}, 0, ""), f.lid(1));
  CHECK(none.status == 0);
  CHECK(none.count == 0);

  // Delete answers the deleted record; deleting it again finds nothing.
  auto del = run(reg, f.s, wire::method::delete_, c_id | c_gid, service(0x10, f.gid(0), 0, ""), f.lid(0));
  REQUIRE(del.status == 0);
  REQUIRE(del.count == 1);
  CHECK(service_record(del, 0).name() == "alpha-2");
  CHECK(reg.size() == 1);
  CHECK(run(reg, f.s, wire::method::delete_, c_id | c_gid, service(0x10, f.gid(0), 0, ""), f.lid(0)).status ==
        wire::sa_status::no_records);

  // Other methods and attributes are not the registry's.
  CHECK(run(reg, f.s, wire::method::get_multi, 0, {}, f.lid(0)).outcome == sa::SaQueryOutcome::unsupported_method);
  sa::SaQuery other;
  other.attribute = wire::sa_attr::node_record;
  other.method = wire::method::get_table;
  CHECK(reg.handle(f.s, other, 0).outcome == sa::SaQueryOutcome::unsupported_attribute);
}

TEST_CASE("service leases end on time, restart on replace, and 0xFFFFFFFF never ends", "[sa][services]") {
  Fixture f;
  sa::ServiceRegistry reg;
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, service(1, f.gid(0), 10, "short"), f.lid(0), 0).status == 0);
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, service(2, f.gid(0), wire::service_lease_infinite, "forever"),
              f.lid(0), 0)
              .status == 0);
  // No lease selected: infinite, as the answer says.
  auto unleased = run(reg, f.s, wire::method::set, c_id | c_gid, service(3, f.gid(0), 5, "x"), f.lid(0), 0);
  REQUIRE(unleased.status == 0);
  CHECK(service_record(unleased, 0).service_lease == wire::service_lease_infinite);
  REQUIRE(reg.next_expiry() == 10 * second);

  auto find = [&](uint64_t id, Micros now) {
    return run(reg, f.s, wire::method::get, c_id, service(id, {}, 0, ""), f.lid(1), now).status == 0;
  };
  CHECK(find(1, 10 * second - 1));
  // Expired: never answered, before expire() as after.
  CHECK_FALSE(find(1, 10 * second));
  CHECK(reg.size() == 3);
  CHECK(run(reg, f.s, wire::method::delete_, c_id | c_gid, service(1, f.gid(0), 0, ""), f.lid(0), 10 * second)
            .status == wire::sa_status::no_records);
  reg.expire(10 * second);
  CHECK(reg.size() == 2);
  CHECK(reg.next_expiry() == std::nullopt);
  CHECK(find(2, 1000000 * second));
  CHECK(find(3, 1000000 * second));

  // Replacing restarts the lease.
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, service(4, f.gid(0), 10, "renewed"), f.lid(0), 0).status == 0);
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, service(4, f.gid(0), 10, "renewed"), f.lid(0), 5 * second)
              .status == 0);
  CHECK(reg.next_expiry() == 15 * second);
  CHECK(find(4, 12 * second));
  reg.expire(12 * second);
  CHECK(reg.size() == 3);
  reg.expire(15 * second);
  CHECK(reg.size() == 2);
}

TEST_CASE("only the owner changes a service record, unless the request is trusted", "[sa][services]") {
  Fixture f;
  sa::ServiceRegistry reg;
  auto mine = service(7, f.gid(0), 100, "mine");
  REQUIRE(run(reg, f.s, wire::method::set, set_mask, mine, f.lid(0)).status == 0);

  // Another port may neither replace nor delete it, nor register for a GID not its own.
  auto theirs = service(7, f.gid(0), 100, "hijacked");
  CHECK(run(reg, f.s, wire::method::set, set_mask, theirs, f.lid(2)).status == wire::sa_status::req_denied);
  CHECK(run(reg, f.s, wire::method::delete_, c_id | c_gid, mine, f.lid(2)).status == wire::sa_status::req_denied);
  CHECK(run(reg, f.s, wire::method::set, set_mask, mine, Lid{999}).status == wire::sa_status::req_denied);
  // The owner's other port is another GID: not the owner either.
  CHECK(run(reg, f.s, wire::method::delete_, c_id | c_gid, mine, f.lid(1)).status == wire::sa_status::req_denied);
  CHECK(service_record(run(reg, f.s, wire::method::get, c_id, mine, f.lid(2)), 0).name() == "mine");

  // An SM_Key holder may, and sees the ServiceKey.
  auto replaced = run(reg, f.s, wire::method::set, set_mask, theirs, f.lid(2), 0, true);
  REQUIRE(replaced.status == 0);
  CHECK(service_record(replaced, 0).service_key == theirs.service_key);
  CHECK(service_record(run(reg, f.s, wire::method::get, c_id, mine, f.lid(2), 0, true), 0).name() == "hijacked");
  REQUIRE(run(reg, f.s, wire::method::delete_, c_id | c_gid, mine, f.lid(2), 0, true).status == 0);
  CHECK(reg.size() == 0);
}

TEST_CASE("service record sets are checked: identity, GID, mask, P_Key, table size", "[sa][services]") {
  Fixture f;
  sa::ServiceRegistry reg(sa::ServiceRegistryOptions{.max_records = 2});
  // Without ServiceID and ServiceGID there is no identity.
  CHECK(run(reg, f.s, wire::method::set, c_id | c_name, service(1, f.gid(0), 1, "x"), f.lid(0)).status ==
        wire::sa_status::req_insufficient_components);
  CHECK(run(reg, f.s, wire::method::delete_, c_gid, service(1, f.gid(0), 1, "x"), f.lid(0)).status ==
        wire::sa_status::req_insufficient_components);
  // A mask bit beyond the record's 37 components.
  CHECK(run(reg, f.s, wire::method::set, set_mask | (1ULL << 40), service(1, f.gid(0), 1, "x"), f.lid(0)).status ==
        wire::sa_status::req_invalid);
  CHECK(run(reg, f.s, wire::method::get_table, 1ULL << 40, {}, f.lid(0)).status == wire::sa_status::req_invalid);
  // A GID whose interface ID is no port of this subnet, even from a trusted requester.
  auto no_port = wire::Gid::from_parts(f.s.subnet_prefix, 0x1234);
  CHECK(run(reg, f.s, wire::method::set, set_mask, service(1, no_port, 1, "x"), f.lid(0), 0, true).status ==
        wire::sa_status::req_gid_invalid);
  // A ServiceP_Key the port does not hold: refused untrusted; a trusted
  // record of it is then invisible to untrusted requesters.
  auto partitioned = service(5, f.gid(0), 1000, "p");
  partitioned.service_p_key = 0x8123;
  CHECK(run(reg, f.s, wire::method::set, set_mask | c_pkey, partitioned, f.lid(0)).status ==
        wire::sa_status::req_invalid);
  REQUIRE(run(reg, f.s, wire::method::set, set_mask | c_pkey, partitioned, f.lid(0), 0, true).status == 0);
  CHECK(run(reg, f.s, wire::method::get_table, c_id, partitioned, f.lid(0)).count == 0);
  CHECK(run(reg, f.s, wire::method::get_table, c_id, partitioned, f.lid(0), 0, true).count == 1);
  // The default partition's P_Key, selected, is held by every port.
  auto open = service(6, f.gid(0), 1000, "o");
  open.service_p_key = 0xFFFF;
  REQUIRE(run(reg, f.s, wire::method::set, set_mask | c_pkey, open, f.lid(0)).status == 0);
  // The table holds two: a third is refused, a replacement is not.
  CHECK(run(reg, f.s, wire::method::set, set_mask, service(9, f.gid(0), 1, "x"), f.lid(0)).status ==
        wire::sa_status::no_resources);
  CHECK(run(reg, f.s, wire::method::set, set_mask | c_pkey, open, f.lid(0)).status == 0);
  CHECK(reg.size() == 2);
}

TEST_CASE("service GetTable with random masks returns what a naive filter keeps", "[sa][services]") {
  Fixture f;
  sa::ServiceRegistry reg;
  topogen::Prng prng(0x5e41ce);
  std::vector<std::vector<uint8_t>> table;  // as stored, ServiceID order
  for (uint64_t id = 1; id <= 24; ++id) {
    const size_t owner = prng.next() % f.cas.size();
    auto r = service(id, f.gid(owner), 1000 + static_cast<uint32_t>(prng.next() % 3), id % 2 ? "odd" : "even");
    r.data8[prng.next() % 16] = static_cast<uint8_t>(prng.next() % 3);
    r.data16[0] = static_cast<uint16_t>(prng.next() % 2);
    r.data32[prng.next() % 4] = static_cast<uint32_t>(prng.next() % 2);
    r.data64[1] = prng.next() % 2;
    r.service_key[3] = static_cast<uint8_t>(prng.next() % 2);
    REQUIRE(run(reg, f.s, wire::method::set, ~0ULL >> (64 - 37) & ~(1ULL << 3) & ~c_pkey, r, f.lid(owner)).status ==
            0);
    r.service_p_key = 0xFFFF;
    std::vector<uint8_t> bytes(wire::sa_record_size::service);
    wire::encode(r, bytes);
    table.push_back(bytes);
  }
  const auto comps = std::span<const wire::Component>(wire::service_record_components);
  const uint64_t defined = wire::component_mask_of(comps);
  CHECK(defined == (~0ULL >> (64 - 37)));  // 37 components: IBA 15.2.5.14
  size_t nonempty = 0;
  for (int round = 0; round < 60; ++round) {
    const auto& tmpl = table[prng.next() % table.size()];
    uint64_t mask = prng.next() & defined & ~(c_id | c_gid);
    if (round % 2) mask &= prng.next();
    auto r = run(reg, f.s, wire::method::get_table, mask, decoded(wire::decode_service_record(tmpl)), f.lid(0),
                 0, true);
    REQUIRE(r.status == 0);
    nonempty += test::require_filtered(r, table, tmpl, mask, comps) > 1;
  }
  CHECK(nonempty > 10);  // the masks did select several records, not just the template's
  // Matching single components by hand.
  wire::ServiceRecord t;
  t.data16[0] = 1;
  auto ones = run(reg, f.s, wire::method::get_table, c_data16_0, t, f.lid(0), 0, true);
  for (size_t i = 0; i < ones.count; ++i) CHECK(service_record(ones, i).data16[0] == 1);
  t.data8[0] = 2;
  auto both = run(reg, f.s, wire::method::get_table, c_data16_0 | c_data8_0, t, f.lid(0), 0, true);
  CHECK(both.count <= ones.count);
}

TEST_CASE("a service gid names its port by the interface id, whatever the prefix", "[sa][services]") {
  // osmtest -f s registers with ServiceGID 0::port GUID (3.3.23 sends the
  // link-local prefix in host byte order, 0x80fe); OpenSM finds the port by
  // the interface ID and keeps the GID as given, so the record is found by it.
  Fixture f;
  sa::ServiceRegistry reg;
  const uint64_t prefix = GENERATE(uint64_t{0}, uint64_t{0x80fe}, uint64_t{0xfe80000000000001});
  INFO("prefix " << std::hex << prefix);
  const wire::Gid zero_prefix = wire::Gid::from_parts(prefix, f.cas[0]->guid.value);
  auto rec = service(0x10, zero_prefix, 100, "zero prefix");
  auto set = run(reg, f.s, wire::method::set, set_mask, rec, f.lid(0));
  REQUIRE(set.status == 0);
  CHECK(service_record(set, 0).service_gid == zero_prefix);
  auto got = run(reg, f.s, wire::method::get, c_id | c_gid, rec, f.lid(0));
  REQUIRE(got.status == 0);
  CHECK(service_record(got, 0).service_gid == zero_prefix);
  CHECK(service_record(got, 0).name() == "zero prefix");
  // Still only the port's own requests own it: another port is refused.
  CHECK(run(reg, f.s, wire::method::set, set_mask, service(0x11, zero_prefix, 1, "x"), f.lid(2)).status ==
        wire::sa_status::req_denied);
  // No port has that interface ID: no port.
  CHECK(run(reg, f.s, wire::method::set, set_mask, service(0x12, wire::Gid::from_parts(prefix, 0x1234), 1, "x"), f.lid(0),
            0, true)
            .status == wire::sa_status::req_gid_invalid);
  REQUIRE(run(reg, f.s, wire::method::delete_, c_id | c_gid, rec, f.lid(0)).status == 0);
  CHECK(reg.size() == 0);
}
