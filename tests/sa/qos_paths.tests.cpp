// PathRecords follow the QoS policy (sa/qos_paths.h): the matching level's
// SL and its MTU, rate and packet lifetime limits; an engine that assigns
// SLs keeps its own SL; no policy, no change. A level's P_Keys choose the
// path's P_Key and refuse other asked ones; its path bits choose the LIDs
// of both ends (LMC 1 and 2), in Get, GetTable and GetMulti.
#include "sa/qos_paths.h"

#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/sa/multi_path_record.h"
#include "mad/wire/sa/path_record.h"
#include "sa/path_records.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::SweepHarness;

namespace {

constexpr uint64_t kSgid = 1u << 3, kDgid = 1u << 2, kServiceIdMsb = 1u << 0, kServiceIdLsb = 1u << 1;

std::shared_ptr<const QosPolicy> policy(const std::string& text) {
  std::istringstream in(text);
  auto p = parse_qos_policy(in, "qos-policy.conf");
  INFO((p.ok() ? std::string() : p.status().message()));
  REQUIRE(p.ok());
  return std::make_shared<const QosPolicy>(std::move(*p));
}

constexpr uint64_t kDlid = 1u << 4, kRawTraffic = 1u << 6, kPKey = 1u << 13;

// A PathRecord query from `a` to `b` (by GIDs), with `more` of `t` in the mask.
sa::SaQueryResult query(const sa::SaSnapshot& s, const sa::EndPort& a, const sa::EndPort& b, uint64_t more = 0,
                        wire::PathRecord t = {}, uint8_t method = wire::method::get) {
  t.sgid = wire::Gid::from_parts(s.subnet_prefix, a.guid.value);
  t.dgid = wire::Gid::from_parts(s.subnet_prefix, b.guid.value);
  auto e = test::encoded_query(method, wire::sa_attr::path_record, kSgid | kDgid | more, t, wire::sa_record_size::path);
  return sa::run_path_query(s, e.query);
}

wire::PathRecord qos_path_record(const sa::SaQueryResult& r, size_t i) {
  auto d = wire::decode_path_record(r.record(i));
  REQUIRE(d.ok());
  return *d;
}

wire::PathRecord path(const sa::SaSnapshot& s, const sa::EndPort& a, const sa::EndPort& b, uint64_t more = 0,
                      uint64_t service_id = 0) {
  wire::PathRecord t;
  t.service_id = service_id;
  auto r = query(s, a, b, more, t);
  REQUIRE(r.count == 1);
  return qos_path_record(r, 0);
}

// A GetMulti from `a` to each of `to`, with `more` of `fixed` in the mask.
sa::SaQueryResult multi_path(const sa::SaSnapshot& s, const sa::EndPort& a, const std::vector<const sa::EndPort*>& to,
                             uint64_t more = 0, const wire::MultiPathRecord& fixed = {}) {
  namespace mf = wire::multi_path_record_fields;
  std::vector<uint8_t> bytes(wire::sa_record_size::multi_path_fixed + 16 * (1 + to.size()));
  wire::encode(fixed, bytes);
  wire::set_field(bytes, mf::sgid_count, 1);
  wire::set_field(bytes, mf::dgid_count, to.size());
  wire::set_gid(bytes, mf::gid(0), wire::Gid::from_parts(s.subnet_prefix, a.guid.value));
  for (size_t i = 0; i < to.size(); ++i)
    wire::set_gid(bytes, mf::gid(1 + i), wire::Gid::from_parts(s.subnet_prefix, to[i]->guid.value));
  sa::SaQuery q;
  q.method = wire::method::get_multi;
  q.attribute = wire::sa_attr::multi_path_record;
  q.component_mask = wire::component_bit(wire::multi_path_record_components, mf::sgid_count) |
                     wire::component_bit(wire::multi_path_record_components, mf::dgid_count) | more;
  q.record = bytes;
  return sa::run_path_query(s, q);
}

// The end port of the host the SMAs describe as `name`.
const sa::EndPort& host(const sa::SaSnapshot& s, std::string_view name) {
  const Fabric& f = s.fabric;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    if (n.description != name) continue;
    const sa::EndPort* e = s.by_port_guid(n.port(1).guid);
    REQUIRE(e != nullptr);
    return *e;
  }
  FAIL("no node described " << name);
  return s.endports.front();
}

}  // namespace

TEST_CASE("a PathRecord takes the SL and limits of the policy level that matches", "[sa][path][qos]") {
  SweepHarness h(test::one_switch_fabric({"h1", "h2", "h3"}));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const Fabric& f = s.fabric;
  // The swept fabric names nodes by GUID; the SMAs answer the netfile's names as descriptions.
  auto node_of = [&](std::string_view name) -> const Node& {
    for (uint32_t i = 0; i < f.node_count(); ++i)
      if (f.node(NodeIndex{i}).description == name) return f.node(NodeIndex{i});
    FAIL("no node described " << name);
    return f.node(NodeIndex{0});
  };
  auto port_of = [&](const char* name) {
    const Node& n = node_of(name);
    const sa::EndPort* e = s.by_port_guid(n.port(1).guid);
    REQUIRE(e != nullptr);
    return *e;
  };
  const sa::EndPort h1 = port_of("h1"), h2 = port_of("h2"), h3 = port_of("h3");
  const wire::PathRecord plain = path(s, h1, h2);
  CHECK(plain.sl == 0);

  s.qos_policy = policy(fmt::format(R"(port-groups
  port-group
    name: Fast
    port-guid: {}
  end-port-group
  port-group
    name: ByName
    port-name: {}/P1
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: Low
    sl: 3
    mtu-limit: 1
    rate-limit: 2
    packet-life: 5
  end-qos-level
  qos-level
    name: Named
    sl: 6
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    source: Fast
    qos-level-name: Low
  end-qos-match-rule
  qos-match-rule
    destination: ByName
    qos-level-name: Named
  end-qos-match-rule
end-qos-match-rules
qos-ulps
  sdp : 9
  default : 2
end-qos-ulps
)",
                                    h1.guid, node_of("h3").description));
  const wire::PathRecord low = path(s, h1, h2);
  CHECK(low.sl == 3);
  CHECK(low.mtu == 1);   // 256 bytes
  CHECK(low.rate == 2);  // 2.5 Gb/s
  CHECK(low.packet_life_time == 5);
  CHECK(path(s, h2, h3).sl == 6);  // by the destination's port name
  CHECK(path(s, h2, h1).sl == 2);  // nothing matched: the default ULP line
  CHECK(path(s, h2, h1).mtu == plain.mtu);
  CHECK(path(s, h2, h1, kServiceIdMsb | kServiceIdLsb, 0x10000 + 22).sl == 9);  // SDP's service ID
  CHECK(path(s, h1, h1).sl == 0);  // a port to itself: no path through the fabric

  SECTION("an engine that assigns SLs keeps them; the limits still apply") {
    s.path_sl = [](Lid, Lid) { return uint8_t{11}; };
    const wire::PathRecord r = path(s, h1, h2);
    CHECK(r.sl == 11);
    CHECK(r.mtu == 1);
  }
}

TEST_CASE("a level's P_Keys: the first the pair shares, no path for another asked P_Key or a pair without one",
          "[sa][path][qos][partitions]") {
  // A (0x1) and B (0x2): h1, h2 full; C (0x3): h1, h3 full.
  Fabric f = test::one_switch_fabric({"h1", "h2", "h3"});
  auto guid = [&](const char* name) {
    for (uint32_t i = 0; i < f.node_count(); ++i)
      if (f.node(NodeIndex{i}).name == name) return f.node(NodeIndex{i}).port(1).guid;
    FAIL("no node " << name);
    return Guid{};
  };
  std::istringstream conf(
      fmt::format("A=0x1 : {0}=full, {1}=full ;\nB=0x2 : {0}=full, {1}=full ;\nC=0x3 : {0}=full, {2}=full ;\n",
                  guid("h1"), guid("h2"), guid("h3")));
  auto partitions = read_partitions_conf(conf, "partitions.conf");
  REQUIRE(partitions.ok());
  SweepHarness h(std::move(f));
  h.config().partitions = std::make_shared<const PartitionConfig>(std::move(*partitions));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const sa::EndPort &h1 = host(s, "h1"), &h2 = host(s, "h2"), &h3 = host(s, "h3");
  wire::PathRecord asked;
  asked.p_key = 0x8001;
  // Without a policy: the lowest partition shared, and any shared one asked.
  CHECK(path(s, h1, h2).p_key == 0x8001);
  CHECK(path(s, h1, h3).p_key == 0x8003);
  CHECK(query(s, h1, h2, kPKey, asked).count == 1);

  // From h1: partition 2 only. To h1: partition 2, then 1 (file order).
  s.qos_policy = policy(fmt::format(R"(port-groups
  port-group
    name: One
    port-guid: {}
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: Second
    sl: 4
    pkey: 0x0002
  end-qos-level
  qos-level
    name: Ordered
    sl: 5
    pkey: 0x2, 0x1
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    source: One
    qos-level-name: Second
  end-qos-match-rule
  qos-match-rule
    destination: One
    qos-level-name: Ordered
  end-qos-match-rule
end-qos-match-rules
)",
                                    h1.guid));
  SECTION("no P_Key asked: the level's, as the source holds it") {
    const wire::PathRecord r = path(s, h1, h2);
    CHECK(r.sl == 4);
    CHECK(r.p_key == 0x8002);
    // The first of the level's partitions the pair shares, not the lowest.
    CHECK(path(s, h2, h1).p_key == 0x8002);
  }
  SECTION("a P_Key asked that the level does not list: no path (OpenSM ERR 1F1D)") {
    CHECK(query(s, h1, h2, kPKey, asked).status == wire::sa_status::no_records);
    asked.p_key = 0x8002;
    CHECK(qos_path_record(query(s, h1, h2, kPKey, asked), 0).p_key == 0x8002);
    asked.p_key = 0x0002;  // the level's partition, answered as asked
    CHECK(qos_path_record(query(s, h1, h2, kPKey, asked), 0).p_key == 0x0002);
  }
  SECTION("a pair that shares none of the level's P_Keys has no path; raw traffic carries none") {
    CHECK(query(s, h1, h3).status == wire::sa_status::no_records);  // h1 and h3 share C only
    CHECK(query(s, h3, h1).status == wire::sa_status::no_records);
    wire::PathRecord raw;
    raw.raw_traffic = true;
    CHECK(qos_path_record(query(s, h1, h3, kRawTraffic, raw), 0).p_key == 0);
    // A table from h1: itself and h2, not h3.
    wire::PathRecord t;
    t.sgid = wire::Gid::from_parts(s.subnet_prefix, h1.guid.value);
    auto e = test::encoded_query(wire::method::get_table, wire::sa_attr::path_record, kSgid, t,
                                 wire::sa_record_size::path);
    auto table = sa::run_path_query(s, e.query);
    REQUIRE(table.count == 2);
    for (size_t i = 0; i < table.count; ++i) CHECK(qos_path_record(table, i).p_key == 0x8002);
  }
  SECTION("multipath records follow the level's P_Keys too") {
    auto r = multi_path(s, h1, {&h2, &h3});
    REQUIRE(r.count == 1);
    CHECK(qos_path_record(r, 0).p_key == 0x8002);
    CHECK(qos_path_record(r, 0).dgid.interface_id() == h2.guid.value);
    wire::MultiPathRecord fixed;
    fixed.p_key = 0x8001;
    const uint64_t p_key =
        wire::component_bit(wire::multi_path_record_components, wire::multi_path_record_fields::p_key);
    CHECK(multi_path(s, h1, {&h2, &h3}, p_key, fixed).count == 0);
  }
}

TEST_CASE("a level's path bits choose the LIDs of both ends", "[sa][path][qos][lmc]") {
  const uint8_t lmc = GENERATE(uint8_t{1}, uint8_t{2});
  SweepHarness h(test::one_switch_fabric({"h1", "h2", "h3"}));
  sa::SaSnapshot s = test::swept_snapshot(h, lmc);
  const sa::EndPort &h1 = host(s, "h1"), &h2 = host(s, "h2");
  REQUIRE(h1.lmc == lmc);
  REQUIRE(h2.lmc == lmc);
  // LMC 1: the second LID of each port; LMC 2: the second and the fourth.
  const std::vector<uint16_t> bits = lmc == 1 ? std::vector<uint16_t>{1} : std::vector<uint16_t>{1, 3};
  s.qos_policy = policy(fmt::format(R"(qos-levels
  qos-level
    name: DEFAULT
    sl: 1
    path-bits: {}
  end-qos-level
end-qos-levels
)",
                                    lmc == 1 ? "1" : "1,3"));
  auto offsets = [&](const wire::PathRecord& r) {
    return std::pair<uint16_t, uint16_t>(r.slid.value - h1.base_lid.value, r.dlid.value - h2.base_lid.value);
  };
  const std::set<uint16_t> allowed(bits.begin(), bits.end());
  // Every (SLID, DLID) pair of the allowed path bits, the same offset at both ends first (Preference 0).
  auto check_table = [&](const sa::SaQueryResult& r) {
    REQUIRE(r.status == 0);
    REQUIRE(r.count == bits.size() * bits.size());
    std::set<std::pair<uint16_t, uint16_t>> seen;
    for (size_t i = 0; i < r.count; ++i) {
      const wire::PathRecord p = qos_path_record(r, i);
      const auto [so, d] = offsets(p);
      CHECK(allowed.count(so) == 1);
      CHECK(allowed.count(d) == 1);
      CHECK((i < bits.size()) == (so == d));
      CHECK(p.preference == (so == d ? 0 : 2));
      CHECK(p.sl == 1);
      seen.insert({so, d});
    }
    CHECK(seen.size() == r.count);
  };

  SECTION("a Get answers the first allowed LIDs") {
    const wire::PathRecord r = path(s, h1, h2);
    CHECK(offsets(r) == std::pair<uint16_t, uint16_t>(1, 1));
    CHECK(r.preference == 0);
  }
  SECTION("a GetTable answers the allowed pairs only") {
    check_table(query(s, h1, h2, 0, {}, wire::method::get_table));
  }
  SECTION("a GetMulti answers the allowed pairs only") {
    check_table(multi_path(s, h1, {&h2}));
  }
  SECTION("a DLID asked outside the path bits has no path") {
    wire::PathRecord t;
    t.dlid = h2.base_lid;
    CHECK(query(s, h1, h2, kDlid, t).status == wire::sa_status::no_records);
    t.dlid = Lid{static_cast<uint16_t>(h2.base_lid.value + 1)};
    CHECK(offsets(qos_path_record(query(s, h1, h2, kDlid, t), 0)) == std::pair<uint16_t, uint16_t>(1, 1));
  }
  SECTION("path bits beyond the LMC leave no LID, so no path") {
    s.qos_policy = policy(
        "qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 1\n    path-bits: 4-7\n"
        "  end-qos-level\nend-qos-levels\n");
    CHECK(query(s, h1, h2).status == wire::sa_status::no_records);
  }
  SECTION("without path bits every LID pair answers") {
    s.qos_policy = policy("qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 1\n  end-qos-level\nend-qos-levels\n");
    CHECK(query(s, h1, h2, 0, {}, wire::method::get_table).count == (1u << lmc) * (1u << lmc));
  }
}
