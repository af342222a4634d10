// PathRecords follow the QoS policy (sa/qos_paths.h): the matching level's
// SL and its MTU, rate and packet lifetime limits; an engine that assigns
// SLs keeps its own SL; no policy, no change.
#include "sa/qos_paths.h"

#include <sstream>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
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

wire::PathRecord path(const sa::SaSnapshot& s, const sa::EndPort& a, const sa::EndPort& b, uint64_t more = 0,
                      uint64_t service_id = 0) {
  wire::PathRecord t;
  t.sgid = wire::Gid::from_parts(s.subnet_prefix, a.guid.value);
  t.dgid = wire::Gid::from_parts(s.subnet_prefix, b.guid.value);
  t.service_id = service_id;
  auto e = test::encoded_query(wire::method::get, wire::sa_attr::path_record, kSgid | kDgid | more, t,
                               wire::sa_record_size::path);
  auto r = sa::run_path_query(s, e.query);
  REQUIRE(r.count == 1);
  auto d = wire::decode_path_record(r.record(0));
  REQUIRE(d.ok());
  return *d;
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
