// OpenSM's qos-policy.conf: each section, the matching order, and bad files
// named by file and line.
#include "sm/fabric/qos_policy.h"

#include <sstream>

#include <catch2/catch.hpp>

using namespace ibsm;

namespace {

Result<QosPolicy> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_qos_policy(in, "qos-policy.conf");
}

QosPolicy must(const std::string& text) {
  auto p = parse(text);
  INFO((p.ok() ? std::string() : p.status().message()));
  REQUIRE(p.ok());
  return std::move(*p);
}

// No facts beyond GUIDs, unless a test says.
const QosPortFacts kGuidsOnly{};

std::optional<int> sl_of(const QosPolicy& p, QosRequest q, const QosPortFacts& facts = kGuidsOnly) {
  const QosLevel* l = match_qos_level(p, q, facts);
  if (!l) return std::nullopt;
  return l->sl;
}

const char* const kFull = R"(# a policy with every section
port-groups
  port-group
    name: Storage
    use: the storage targets
    port-guid: 0x100, 0x200-0x2ff
  end-port-group
  port-group
    name: Compute
    port-name: "h1 HCA-1/P1", h2 HCA-1
    node-type: ROUTER
  end-port-group
end-port-groups

qos-setup
  sl2vl-tables
    sl2vl-scope
      group: Storage
      sl2vl-table: 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    end-sl2vl-scope
  end-sl2vl-tables
end-qos-setup

qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
  qos-level
    name: Fast
    use: low latency
    sl: 3
    mtu-limit: 4
    rate-limit: 3
    packet-life: 10
    pkey: 0x8001, 0x10-0x1f
    path-bits: 0,2-3
  end-qos-level
  qos-level
    name: Bulk
    sl: 5
  end-qos-level
end-qos-levels

qos-match-rules
  qos-match-rule
    use: compute to storage
    source: Compute
    destination: Storage
    qos-level-name: Fast
  end-qos-match-rule
  qos-match-rule
    service-id: 0x1000-0x1fff
    qos-class: 7-9,11
    qos-level-name: Bulk
  end-qos-match-rule
end-qos-match-rules

qos-ulps
  default : 1
  sdp, port-num 30000 : 6
  rds : 7
  ipoib, pkey 0x0001 : 8
  srp, target-port-guid 0x300 : 9
  any, pkey 0x0abc : 10
end-qos-ulps
)";

}  // namespace

TEST_CASE("every section of a full policy file is read", "[fabric][qos][policy]") {
  QosPolicy p = must(kFull);
  REQUIRE(p.port_groups.size() == 2);
  CHECK(p.port_groups[0].name == "Storage");
  CHECK(p.port_groups[0].port_guids.size() == 2);
  CHECK(p.port_groups[1].port_names == std::vector<std::string>{"h1 HCA-1/P1", "h2 HCA-1"});
  CHECK(p.port_groups[1].router);
  CHECK_FALSE(p.port_groups[1].ca);
  REQUIRE(p.levels.size() >= 3);
  CHECK(p.levels[1].name == "Fast");
  CHECK(p.levels[1].mtu_limit == 4);
  CHECK(p.levels[1].rate_limit == 3);
  CHECK(p.levels[1].packet_life == 10);
  REQUIRE(p.levels[1].pkeys.size() == 2);  // as written; sa/qos_paths drops the membership bit
  CHECK((p.levels[1].pkeys[0].lo == 0x8001 && p.levels[1].pkeys[0].hi == 0x8001));
  CHECK((p.levels[1].pkeys[1].lo == 0x10 && p.levels[1].pkeys[1].hi == 0x1f));
  REQUIRE(p.levels[1].path_bits.size() == 2);
  CHECK((p.levels[1].path_bits[1].lo == 2 && p.levels[1].path_bits[1].hi == 3));
  CHECK(p.levels[2].pkeys.empty());
  CHECK(p.levels[2].path_bits.empty());
  CHECK(p.rules.size() == 2 + 5);  // the match rules, then the ULP lines but default
  REQUIRE(p.sl2vl_scopes.size() == 1);
  CHECK(p.sl2vl_scopes[0].groups == std::vector<size_t>{0});
  CHECK(p.sl2vl_scopes[0].table[15] == 15);
}

TEST_CASE("qos-setup's VLArb and SL2VL scopes are read with their groups and port lists", "[fabric][qos][policy]") {
  QosPolicy p = must(R"(port-groups
  port-group
    name: A
    node-type: CA
  end-port-group
  port-group
    name: B
    port-guid: 0x5
  end-port-group
end-port-groups
qos-setup
  vlarb-tables
    vlarb-scope
      group: A
      across: B
      vlarb-high: 0:255,1:127
      vlarb-low: 8:255
      vl-high-limit: 10
    end-vlarb-scope
  end-vlarb-tables
  sl2vl-tables
    sl2vl-scope
      group: B
      across-to: A
      from: *
      to: 1-3, 7
      sl2vl-table: 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15
    end-sl2vl-scope
  end-sl2vl-tables
end-qos-setup
)");
  REQUIRE(p.vlarb_scopes.size() == 1);
  const QosVlArbScope& v = p.vlarb_scopes[0];
  CHECK(v.groups == std::vector<size_t>{0});
  CHECK(v.across == std::vector<size_t>{1});
  REQUIRE(v.high);
  CHECK((*v.high)[1] == VlWeight{1, 127});
  CHECK((*v.low)[0] == VlWeight{8, 255});
  CHECK(v.high_limit == 10);
  REQUIRE(p.sl2vl_scopes.size() == 1);
  const QosSl2VlScope& s = p.sl2vl_scopes[0];
  CHECK(s.groups == std::vector<size_t>{1});
  CHECK(s.across_to == std::vector<size_t>{0});
  CHECK(s.from.empty());
  REQUIRE(s.to.size() == 2);
  CHECK(s.to[1].lo == 7);
  CHECK(s.table[8] == 0);
}

TEST_CASE("match rules come first, then the ULP lines in order, then default", "[fabric][qos][policy]") {
  QosPolicy p = must(kFull);
  QosPortFacts compute{[](const QosPortGroup& g, Guid port) { return g.name == "Compute" && port == Guid{0x11}; }};
  // Compute to Storage: Fast.
  CHECK(sl_of(p, {Guid{0x11}, Guid{0x250}}, compute) == 3);
  // Not from Compute: the next rules, then the default ULP line.
  CHECK(sl_of(p, {Guid{0x12}, Guid{0x250}}, compute) == 1);
  // A service-id rule needs the request to carry a ServiceID (and QoS class).
  CHECK(sl_of(p, {Guid{0x12}, Guid{0x250}, 0x1500, std::nullopt, 8}) == 5);
  CHECK(sl_of(p, {Guid{0x12}, Guid{0x250}, 0x1500, std::nullopt, 10}) == 1);
  CHECK(sl_of(p, {Guid{0x12}, Guid{0x250}, std::nullopt, std::nullopt, 8}) == 1);
  // ULPs: SDP's port 30000, RDS's default port, IPoIB by P_Key (membership bit ignored), SRP by target.
  CHECK(sl_of(p, {Guid{1}, Guid{2}, 0x10000 + 30000}) == 6);
  CHECK(sl_of(p, {Guid{1}, Guid{2}, 0x10000 + 30001}) == 1);
  CHECK(sl_of(p, {Guid{1}, Guid{2}, 0x00000000010648CAULL}) == 7);
  CHECK(sl_of(p, {Guid{1}, Guid{2}, std::nullopt, 0x8001}) == 8);
  CHECK(sl_of(p, {Guid{1}, Guid{0x300}}) == 9);
  CHECK(sl_of(p, {Guid{1}, Guid{2}, std::nullopt, 0x0abc}) == 10);
}

TEST_CASE("without a default ULP line a level named DEFAULT applies; with neither, nothing", "[fabric][qos][policy]") {
  QosPolicy levels_only = must("qos-levels\nqos-level\nname: DEFAULT\nsl: 4\nend-qos-level\nend-qos-levels\n");
  CHECK(sl_of(levels_only, {Guid{1}, Guid{2}}) == 4);
  QosPolicy none = must("qos-ulps\nsdp : 2\nend-qos-ulps\n");
  CHECK_FALSE(sl_of(none, {Guid{1}, Guid{2}}).has_value());
  QosPolicy shortest = must("qos-ulps\n  default : 0 # default SL\nend-qos-ulps\n");
  CHECK(sl_of(shortest, {Guid{1}, Guid{2}}) == 0);
  QosPolicy iser = must("qos-ulps\niser : 2\niser, port-num 100-200 : 3\nend-qos-ulps\n");
  CHECK(sl_of(iser, {Guid{1}, Guid{2}, 0x0000000001060CBCULL}) == 2);
  CHECK(sl_of(iser, {Guid{1}, Guid{2}, 0x0000000001060000ULL + 150}) == 3);
}

TEST_CASE("a bad policy names the file, the line and the problem", "[fabric][qos][policy]") {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"qos-levels\nqos-level\nname: A\nsl: 16\nend-qos-level\nend-qos-levels\n", "qos-policy.conf:4: sl: '16' is not 0-15"},
      {"qos-levels\nqos-level\nname: A\nend-qos-level\nend-qos-levels\n", "qos-policy.conf:4: a qos-level needs a name and an sl"},
      {"qos-levels\nqos-level\nname: A\nsl: 1\ncolour: red\n", "qos-policy.conf:5: unknown qos-level field 'colour'"},
      {"qos-levels\nqos-level\nname: A\nsl: 1\npkey: 0x10000\n", "qos-policy.conf:5: pkey: '0x10000' is not a value"},
      {"qos-levels\nqos-level\nname: A\nsl: 1\npath-bits: 3-1\n", "qos-policy.conf:5: path-bits: '3-1' is not a value"},
      {"qos-match-rules\nqos-match-rule\nqos-level-name: Nope\nend-qos-match-rule\nend-qos-match-rules\n",
       "qos-policy.conf:2: no qos-level named 'Nope'"},
      {"qos-levels\nqos-level\nname: A\nsl: 1\nend-qos-level\nend-qos-levels\nqos-match-rules\nqos-match-rule\n"
       "source: Ghosts\nqos-level-name: A\nend-qos-match-rule\nend-qos-match-rules\n",
       "qos-policy.conf:8: no port-group named 'Ghosts'"},
      {"port-groups\nport-group\nname: G\nport-guid: 0x10-0x1\nend-port-group\nend-port-groups\n",
       "qos-policy.conf:4: port-guid: '0x10-0x1' is not a value or range"},
      {"port-groups\nport-group\nname: G\nnode-type: TOASTER\nend-port-group\nend-port-groups\n",
       "qos-policy.conf:4: node-type 'TOASTER'"},
      {"qos-ulps\nsdp, port-num 30000\nend-qos-ulps\n", "qos-policy.conf:2: qos-ulps line"},
      {"qos-ulps\nnfs : 1\nend-qos-ulps\n", "qos-policy.conf:2: qos-ulps: unknown ULP 'nfs'"},
      {"qos-ulps\nrds, pkey 1 : 1\nend-qos-ulps\n", "qos-policy.conf:2: qos-ulps: rds does not take 'pkey'"},
      {"qos-ulps\ndefault : 1\ndefault : 2\nend-qos-ulps\n", "qos-policy.conf:3: qos-ulps: a second default line"},
      {"qos-levels\nqos-level\nname: A\nsl: 1\nend-qos-level\n", "qos-policy.conf:5: the file ends inside a section"},
      {"end-qos-levels\n", "qos-policy.conf:1: end-qos-levels without qos-levels"},
      {"qos-setup\nsl2vl-tables\nsl2vl-scope\nsl2vl-table: 1,2\n", "qos-policy.conf:4: sl2vl-table: '1,2' has 2 VLs"},
      {"qos-setup\nsl2vl-tables\nsl2vl-scope\nend-sl2vl-scope\n", "qos-policy.conf:4: an sl2vl-scope needs an sl2vl-table"},
      {"qos-setup\nvlarb-tables\nvlarb-scope\ngroup: Nobody\nend-vlarb-scope\nend-vlarb-tables\nend-qos-setup\n",
       "qos-policy.conf:3: no port-group named 'Nobody'"},
      {"qos-setup\nvlarb-tables\nvlarb-scope\nvlarb-low: 0:300\n", "qos-policy.conf:4: vlarb-low:"},
      {"port-group\n", "qos-policy.conf:1: port-group is out of place"},
      {"qos-levels\nqos-level\nname: A\nsl: 1\nend-qos-level\nqos-level\nname: A\nsl: 2\nend-qos-level\nend-qos-levels\n",
       "qos-policy.conf:6: a second qos-level named 'A'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto p = parse(c.text);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.status().message(), Catch::StartsWith(c.says) || Catch::Contains(c.says));
  }
}
