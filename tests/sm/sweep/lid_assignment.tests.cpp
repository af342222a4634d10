// LID assignment: fresh fabrics, keeping what ports hold, conflicts, the
// persisted map across restarts, -r, and fabrics too big for the LID space.
#include "sm/sweep/lid_assignment.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sm/sweep/lid_checks.h"

using namespace ibsm;
using namespace ibsm::lid_testing;

namespace {

const LidChange* change_of(const LidAssignment& a, Guid g) {
  for (const LidChange& c : a.changes) {
    if (c.guid == g) return &c;
  }
  return nullptr;
}

Guid ca_port_guid(uint32_t host) { return Guid{kCaGuid + 0x100ULL * host + 1}; }
Guid switch_guid(uint32_t s) { return Guid{kSwitchGuid + s}; }

NodeIndex node_of(const Fabric& f, Guid port_guid) {
  auto ref = f.find_by_port_guid(port_guid);
  REQUIRE(ref);
  return ref->node;
}

Guid2Lid persist_and_reload(const LidAssignment& a) {
  std::stringstream file;
  write_guid2lid(a.guid2lid, file);
  auto back = parse_guid2lid(file, "guid2lid");
  REQUIRE(back.ok());
  REQUIRE(back->warnings.empty());
  return back->entries;
}

}  // namespace

TEST_CASE("a fresh fabric gets unique aligned lids for every lmc", "[sweep][lids]") {
  const uint8_t lmc = static_cast<uint8_t>(GENERATE(range(0, 8)));
  INFO("lmc " << unsigned{lmc});
  Fabric f = chain(6, 5, /*reverse_guids=*/true);
  LidOptions o{.lmc = lmc};
  LidAssignment a = must(assign_lids(f, o, nullptr));
  check_valid(f, a, o);
  CHECK(a.fresh == 36);
  CHECK(a.changes.size() == 36);  // everyone held lid 0
  CHECK(a.warnings.empty());

  // Switches first, in guid order, packed from lid 1; then the hosts' blocks
  // in guid order, aligned, without holes.
  for (uint32_t s = 0; s < 6; ++s) CHECK(a.find(switch_guid(s))->base.value == s + 1);
  const uint32_t k = 1u << lmc;
  const uint32_t first_host = (6 + 1 + k - 1) / k * k;
  for (uint32_t h = 0; h < 30; ++h) CHECK(a.find(ca_port_guid(h))->base.value == first_host + h * k);

  // The same fabric, built in another node order, gets the same lids.
  Fabric g = chain(6, 5, /*reverse_guids=*/false);
  CHECK(lids_of(must(assign_lids(g, o, nullptr))) == lids_of(a));
}

TEST_CASE("the sm's own port gets the lowest block", "[sweep][lids]") {
  Fabric f = chain(3, 4);
  LidOptions o{.lmc = 2, .sm_port_guid = ca_port_guid(9)};
  LidAssignment a = must(assign_lids(f, o, nullptr));
  check_valid(f, a, o);
  CHECK(a.find(ca_port_guid(9))->base.value == 4);
  CHECK(a.find(switch_guid(0))->base.value == 1);
}

TEST_CASE("fresh lids of generated fabrics are unique", "[sweep][lids]") {
  std::vector<Fabric> fabrics;
  auto add = [&](Result<Fabric> f) {
    REQUIRE(f.ok());
    fabrics.push_back(std::move(*f));
  };
  add(topogen::kary_ntree({.k = 4, .n = 3}));
  add(topogen::dragonfly({}));
  add(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
  add(topogen::back_to_back({}));
  for (const Fabric& f : fabrics) {
    for (uint8_t lmc : {0, 3}) {
      LidOptions o{.lmc = lmc};
      check_valid(f, must(assign_lids(f, o, nullptr)), o);
    }
  }
}

TEST_CASE("ports keep the valid lids they hold", "[sweep][lids]") {
  Fabric f = chain(4, 4);
  // Scattered, unique, aligned for lmc 1.
  for (uint32_t i = 0; i < f.node_count(); ++i) hold(f, NodeIndex{i}, static_cast<uint16_t>(1000 + 6 * i));
  LidOptions o{.lmc = 1};
  LidAssignment a = must(assign_lids(f, o, nullptr));
  check_valid(f, a, o);
  CHECK(a.kept == 20);
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    CHECK(a.find(lid_port(f, NodeIndex{i}).guid)->base.value == 1000 + 6 * i);
  }
  // The hosts held lmc 0 and now get lmc 1 at the same base; switches keep lmc 0.
  CHECK(a.changes.size() == 16);
  for (const LidChange& c : a.changes) {
    CHECK(c.reason == LidDropReason::none);
    CHECK(c.old_base == c.new_base);
    CHECK(c.new_lmc == 1);
  }

  // Applied, a second assignment changes nothing.
  Fabric g = f;
  REQUIRE(apply_lids(a, g).ok());
  LidAssignment again = must(assign_lids(g, o, nullptr));
  CHECK(again.changes.empty());
  CHECK(again.kept == 20);
  CHECK(lids_of(again) == lids_of(a));
}

TEST_CASE("invalid held lids are replaced, with the reason", "[sweep][lids]") {
  Fabric f = chain(2, 4);
  const NodeIndex h0 = node_of(f, ca_port_guid(0)), h1 = node_of(f, ca_port_guid(1)),
                  h2 = node_of(f, ca_port_guid(2)), h3 = node_of(f, ca_port_guid(3)),
                  h4 = node_of(f, ca_port_guid(4)), s0 = node_of(f, switch_guid(0));
  const NodeIndex h5 = node_of(f, ca_port_guid(5));
  hold(f, h0, 0xc001);  // multicast
  hold(f, h1, 6);       // not a multiple of 4
  hold(f, h2, 40);      // valid
  hold(f, h3, 300);     // above the configured range
  hold(f, h4, 40);      // a duplicate of h2: the lower guid keeps it
  hold(f, h5, 44);      // valid, but the switch holds 44 too and has the lower guid
  hold(f, s0, 44);
  LidOptions o{.lmc = 2, .max_lid = Lid{200}};
  LidAssignment a = must(assign_lids(f, o, nullptr));
  check_valid(f, a, o);

  auto reason = [&](Guid g) {
    const LidChange* c = change_of(a, g);
    REQUIRE(c != nullptr);
    CHECK(c->source == LidSource::fresh);
    return c->reason;
  };
  CHECK(reason(ca_port_guid(0)) == LidDropReason::outside_range);
  CHECK(reason(ca_port_guid(1)) == LidDropReason::unaligned);
  CHECK(reason(ca_port_guid(3)) == LidDropReason::outside_range);
  CHECK(reason(ca_port_guid(4)) == LidDropReason::duplicate);
  CHECK(change_of(a, ca_port_guid(4))->other == ca_port_guid(2));
  CHECK(reason(ca_port_guid(5)) == LidDropReason::duplicate);
  CHECK(change_of(a, ca_port_guid(5))->other == switch_guid(0));
  CHECK(reason(ca_port_guid(6)) == LidDropReason::no_lid);
  CHECK(a.find(switch_guid(0))->base.value == 44);
  CHECK(a.find(ca_port_guid(2))->base.value == 40);
  CHECK(a.find(ca_port_guid(2))->source == LidSource::kept);

  CHECK(describe(*change_of(a, ca_port_guid(4))) ==
        fmt::format("guid {} port 1: lid 40 -> {}, lmc 0 -> 2 (guid {} also holds lid 40 and keeps it; lowest free lid)",
                    ca_port_guid(4), a.find(ca_port_guid(4))->base, ca_port_guid(2)));
  CHECK(describe(*change_of(a, ca_port_guid(1))).find("lid 6 is not a multiple of 4 (lmc 2)") != std::string::npos);
}

TEST_CASE("duplicates: the port the persisted map agrees with keeps the lid", "[sweep][lids]") {
  Fabric f = chain(1, 3);
  hold(f, node_of(f, ca_port_guid(0)), 20);
  hold(f, node_of(f, ca_port_guid(2)), 20);
  Guid2Lid map;
  map[ca_port_guid(2)] = {Lid{20}, Lid{20}};
  LidOptions o;
  LidAssignment a = must(assign_lids(f, o, &map));
  check_valid(f, a, o);
  CHECK(a.find(ca_port_guid(2))->base.value == 20);
  const LidChange* c = change_of(a, ca_port_guid(0));
  REQUIRE(c != nullptr);
  CHECK(c->reason == LidDropReason::claimed);
  CHECK(c->other == ca_port_guid(2));
  CHECK(describe(*c).find("the guid2lid map reserves lid 20 for guid") != std::string::npos);

  // Without the map the lower guid wins.
  LidAssignment b = must(assign_lids(f, o, nullptr));
  CHECK(b.find(ca_port_guid(0))->base.value == 20);
  CHECK(change_of(b, ca_port_guid(2))->reason == LidDropReason::duplicate);
}

TEST_CASE("the persisted map gives every port its lid back after a restart", "[sweep][lids]") {
  const uint8_t lmc = static_cast<uint8_t>(GENERATE(0, 2));
  INFO("lmc " << unsigned{lmc});
  Fabric f = chain(5, 6);
  // Lids that a fresh assignment would never produce.
  for (uint32_t i = 0; i < f.node_count(); ++i) hold(f, NodeIndex{i}, static_cast<uint16_t>(4000 - 8 * i));
  LidOptions o{.lmc = lmc};
  LidAssignment first = must(assign_lids(f, o, nullptr));
  check_valid(f, first, o);
  REQUIRE(first.kept == 35);
  const Guid2Lid map = persist_and_reload(first);

  // Restart: every port comes back with lid 0.
  Fabric restarted = f;
  clear_lids(restarted);
  LidAssignment second = must(assign_lids(restarted, o, &map));
  check_valid(restarted, second, o);
  CHECK(lids_of(second) == lids_of(first));
  CHECK(second.persisted == 35);
  CHECK(second.guid2lid == first.guid2lid);
  const LidChange* c = change_of(second, ca_port_guid(3));
  REQUIRE(c != nullptr);
  CHECK(c->source == LidSource::persisted);
  CHECK(c->reason == LidDropReason::no_lid);
  CHECK(describe(*c).ends_with("(had no lid; lid from the guid2lid map)"));

  // Without the map the lids would differ: the map is what brought them back.
  CHECK(lids_of(must(assign_lids(restarted, o, nullptr))) != lids_of(first));
}

TEST_CASE("lids of absent ports stay reserved", "[sweep][lids]") {
  Fabric f = chain(1, 2);
  Guid2Lid map;
  const Guid gone{0x0002c905000000a1};
  map[gone] = {Lid{1}, Lid{1}};
  hold(f, node_of(f, ca_port_guid(1)), 1);  // holds the absent port's lid
  LidOptions o;
  LidAssignment a = must(assign_lids(f, o, &map));
  check_valid(f, a, o);
  for (const AssignedLid& p : a.ports) CHECK(p.base.value != 1);
  CHECK(a.guid2lid.at(gone) == LidRange{Lid{1}, Lid{1}});
  CHECK(change_of(a, ca_port_guid(1))->reason == LidDropReason::claimed);
  CHECK(change_of(a, ca_port_guid(1))->other == gone);
}

TEST_CASE("a port that keeps its lid releases its persisted block", "[sweep][lids]") {
  Fabric f = chain(1, 2);
  // host 0 holds 10 but the map says 20; host 1 holds 20. Host 0 keeps 10
  // (live lids win), which frees 20 for host 1.
  hold(f, node_of(f, ca_port_guid(0)), 10);
  hold(f, node_of(f, ca_port_guid(1)), 20);
  Guid2Lid map;
  map[ca_port_guid(0)] = {Lid{20}, Lid{20}};
  LidOptions o;
  LidAssignment a = must(assign_lids(f, o, &map));
  check_valid(f, a, o);
  CHECK(a.find(ca_port_guid(0))->base.value == 10);
  CHECK(a.find(ca_port_guid(1))->base.value == 20);
  CHECK(a.kept == 2);
  CHECK(a.guid2lid.at(ca_port_guid(0)) == LidRange{Lid{10}, Lid{10}});
}

TEST_CASE("bad persisted entries are dropped with a warning", "[sweep][lids]") {
  Fabric f = chain(1, 3);
  Guid2Lid map;
  map[ca_port_guid(0)] = {Lid{8}, Lid{11}};   // overlaps the next one
  map[ca_port_guid(1)] = {Lid{10}, Lid{10}};  // higher guid: dropped
  map[ca_port_guid(2)] = {Lid{300}, Lid{300}};  // outside the range
  LidOptions o{.max_lid = Lid{100}};
  LidAssignment a = must(assign_lids(f, o, &map));
  check_valid(f, a, o);
  CHECK(a.find(ca_port_guid(0))->base.value == 8);  // entry narrowed to lmc 0
  CHECK(a.find(ca_port_guid(0))->source == LidSource::persisted);
  REQUIRE(a.warnings.size() == 2);
  CHECK(a.warnings[0] == fmt::format("guid2lid entry of guid {} (lids 10-10) overlaps the entry of guid {} at lid 10; "
                                     "dropped", ca_port_guid(1), ca_port_guid(0)));
  CHECK(a.warnings[1].find("lies outside the lid range 1-100") != std::string::npos);
}

TEST_CASE("an lmc change widens blocks in place where they fit", "[sweep][lids]") {
  Fabric f = chain(2, 3);
  LidOptions o0;
  LidAssignment a0 = must(assign_lids(f, o0, nullptr));
  const Guid2Lid map = persist_and_reload(a0);
  Fabric restarted = f;
  clear_lids(restarted);
  LidOptions o2{.lmc = 2};
  LidAssignment a2 = must(assign_lids(restarted, o2, &map));
  check_valid(restarted, a2, o2);
  // Switches keep their single lids; a host's entry survives only if it is a multiple of 4.
  for (const AssignedLid& p : a2.ports) {
    const Lid before = a0.find(p.guid)->base;
    if (p.is_switch || before.value % 4 == 0) {
      CHECK(p.base == before);
    }
  }
  bool warned = false;
  for (const auto& w : a2.warnings) warned |= w.find("cannot hold a block of 4 lids (lmc 2)") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("reassign_all packs every lid afresh", "[sweep][lids]") {
  Fabric f = chain(3, 3);
  for (uint32_t i = 0; i < f.node_count(); ++i) hold(f, NodeIndex{i}, static_cast<uint16_t>(500 + 3 * i));
  Guid2Lid map;
  map[Guid{0x0002c905000000a1}] = {Lid{1}, Lid{1}};  // absent: forgotten under -r
  map[ca_port_guid(0)] = {Lid{77}, Lid{77}};
  LidOptions o{.reassign_all = true};
  LidAssignment a = must(assign_lids(f, o, &map));
  check_valid(f, a, o);
  CHECK(a.fresh == 12);
  CHECK(a.guid2lid.size() == 12);
  CHECK(a.top.value == 12);

  Fabric zero = f;
  clear_lids(zero);
  CHECK(lids_of(a) == lids_of(must(assign_lids(zero, LidOptions{}, nullptr))));
  for (const LidChange& c : a.changes) CHECK(c.reason == LidDropReason::reassign_all);
  CHECK(describe(a.changes.front()).find("reassigning all lids") != std::string::npos);
}

TEST_CASE("a fabric bigger than the lid space is a clear error", "[sweep][lids]") {
  // 49,152 hosts and 4,096 switches: 53,248 lids.
  auto big = topogen::xgft({.down = {32, 32, 48}, .up = {1, 32, 32}});
  REQUIRE(big.ok());
  auto r = assign_lids(*big, LidOptions{}, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::failed_precondition);
  CHECK(r.status().message() ==
        "the fabric needs 53248 lids for 4096 switches (4096 lids) and 49152 endpoint ports x 1 lid (lmc 0), "
        "but the lid range 1-49151 has only 49151");
}

TEST_CASE("lmc can make a fabric too big", "[sweep][lids]") {
  Fabric f = chain(4, 100);  // 400 hosts x 128 lids > 49151
  auto r = assign_lids(f, LidOptions{.lmc = 7}, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("needs 51204 lids") != std::string::npos);
  CHECK(r.status().message().ends_with("; a lower lmc needs fewer"));
  LidOptions six{.lmc = 6};
  check_valid(f, must(assign_lids(f, six, nullptr)), six);

  // Enough lids but too few aligned blocks: range 2-9 has 8 lids, one block of 4.
  auto two = topogen::back_to_back({});
  REQUIRE(two.ok());
  auto blocks = assign_lids(*two, LidOptions{.lmc = 2, .min_lid = Lid{2}, .max_lid = Lid{9}}, nullptr);
  REQUIRE_FALSE(blocks.ok());
  CHECK(blocks.status().message().find("needs 2 aligned blocks of 4 lids") != std::string::npos);
}

TEST_CASE("lids that ports keep can fragment the range: the error points to -r", "[sweep][lids]") {
  Fabric f = chain(1, 2);
  hold(f, node_of(f, switch_guid(0)), 5);  // valid for the switch, but inside block 4-7
  LidOptions o{.lmc = 2, .max_lid = Lid{12}};  // blocks 4-7 and 8-11
  auto r = assign_lids(f, o, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::failed_precondition);
  CHECK(r.status().message().find("reassigning all lids (-r) packs them") != std::string::npos);
  LidOptions packed = o;
  packed.reassign_all = true;
  check_valid(f, must(assign_lids(f, packed, nullptr)), packed);
}

TEST_CASE("reservations of absent ports give way when the range is full", "[sweep][lids]") {
  Fabric f = chain(1, 2);
  Guid2Lid map;
  for (uint16_t i = 1; i <= 3; ++i) map[Guid{0x0002c905000000a0ULL + i}] = {Lid{i}, Lid{i}};
  LidOptions o{.max_lid = Lid{4}};
  LidAssignment a = must(assign_lids(f, o, &map));
  check_valid(f, a, o);
  REQUIRE_FALSE(a.warnings.empty());
  CHECK(a.warnings.back() ==
        "the lid range is full: dropped the guid2lid entries of 3 ports not in the fabric to make room");
  CHECK(a.guid2lid.size() == 3);

  // With room to spare they stay reserved.
  LidAssignment roomy = must(assign_lids(f, LidOptions{}, &map));
  CHECK(roomy.guid2lid.size() == 6);
  CHECK(roomy.find(switch_guid(0))->base.value == 4);
}

TEST_CASE("switches get lmc 0 unless lmc_esp0 and enhanced port 0", "[sweep][lids]") {
  Fabric f = chain(3, 1);
  f.node(node_of(f, switch_guid(1))).enhanced_port0 = true;
  LidOptions o{.lmc = 3};
  LidAssignment a = must(assign_lids(f, o, nullptr));
  check_valid(f, a, o);
  CHECK(a.find(switch_guid(1))->lmc == 0);
  o.lmc_esp0 = true;
  LidAssignment b = must(assign_lids(f, o, nullptr));
  check_valid(f, b, o);
  CHECK(b.find(switch_guid(1))->lmc == 3);
  CHECK(b.find(switch_guid(0))->lmc == 0);
  CHECK(b.find(switch_guid(1))->base.value % 8 == 0);
}

TEST_CASE("uncabled ca ports get no lid; a cabled port without a guid is reported", "[sweep][lids]") {
  Fabric f = chain(1, 2);
  Node ca;
  ca.type = NodeType::ca;
  ca.num_ports = 2;
  ca.node_guid = Guid{0x0002c90600000000};
  ca.description = "dual";
  ca.ports.resize(3);
  ca.ports[1].guid = Guid{0x0002c90600000001};
  ca.ports[2].guid = Guid{0x0002c90600000002};  // not cabled
  NodeIndex sw = node_of(f, switch_guid(0));
  auto idx = f.add_node(ca);
  REQUIRE(idx.ok());
  REQUIRE(f.connect({sw, 3}, {*idx, 1}).ok());
  LidOptions o;
  LidAssignment a = must(assign_lids(f, o, nullptr));
  check_valid(f, a, o);
  CHECK(a.find(Guid{0x0002c90600000001}) != nullptr);
  CHECK(a.find(Guid{0x0002c90600000002}) == nullptr);

  f.node(*idx).port(1).guid = Guid{};
  LidAssignment b = must(assign_lids(f, o, nullptr));
  REQUIRE(b.warnings.size() == 1);
  CHECK(b.warnings[0] == "Ca 0x0002c90600000000 \"dual\" port 1 has no port guid: no lid");
}

TEST_CASE("apply_lids writes the lids into a copy of the fabric", "[sweep][lids]") {
  Fabric f = chain(2, 2);
  LidOptions o{.lmc = 1};
  LidAssignment a = must(assign_lids(f, o, nullptr));
  Fabric g = f;
  REQUIRE(apply_lids(a, g).ok());
  for (const AssignedLid& p : a.ports) {
    const Node& n = g.node(p.where.node);
    if (p.is_switch) {
      for (const Port& port : n.ports) {
        CHECK(port.base_lid == p.base);
        CHECK(port.lmc == 0);
      }
    } else {
      CHECK(n.port(p.where.port).base_lid == p.base);
      CHECK(n.port(p.where.port).lmc == 1);
    }
  }
  Fabric other = chain(2, 2, /*reverse_guids=*/true);
  Status s = apply_lids(a, other);
  CHECK(s.code() == StatusCode::failed_precondition);
  CHECK(other.node(NodeIndex{0}).port(0).base_lid.value == 0);  // nothing written
}

TEST_CASE("bad options and duplicate port guids are refused", "[sweep][lids]") {
  Fabric f = chain(1, 2);
  CHECK(assign_lids(f, LidOptions{.lmc = 8}, nullptr).status().message() == "lmc 8 is out of range (0-7)");
  CHECK(assign_lids(f, LidOptions{.min_lid = Lid{10}, .max_lid = Lid{9}}, nullptr).status().code() ==
        StatusCode::invalid_argument);
  CHECK(assign_lids(f, LidOptions{.max_lid = Lid{0xc000}}, nullptr).status().code() == StatusCode::invalid_argument);
  f.node(node_of(f, ca_port_guid(1))).port(1).guid = ca_port_guid(0);
  auto r = assign_lids(f, LidOptions{}, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().starts_with(fmt::format("port guid {} is on two ports", ca_port_guid(0))));
}

TEST_CASE("a 48k-endpoint fabric is assigned, then kept", "[sweep][lids][scale]") {
  Fabric f = chain(1000, 48);  // 48,000 hosts + 1,000 switches = 49,000 of 49,151 lids
  LidOptions o;
  const auto t0 = std::chrono::steady_clock::now();
  LidAssignment a = must(assign_lids(f, o, nullptr));
  const auto t1 = std::chrono::steady_clock::now();
  check_valid(f, a, o);
  CHECK(a.top.value == 49000);
  REQUIRE(apply_lids(a, f).ok());
  const Guid2Lid map = persist_and_reload(a);
  const auto t2 = std::chrono::steady_clock::now();
  LidAssignment b = must(assign_lids(f, o, &map));
  const auto t3 = std::chrono::steady_clock::now();
  CHECK(b.changes.empty());
  CHECK(b.kept == 49000);
  using ms = std::chrono::duration<double, std::milli>;
  const double fresh_ms = ms(t1 - t0).count(), resweep_ms = ms(t3 - t2).count();
  WARN("48k endpoints: fresh " << fresh_ms << " ms, resweep with map " << resweep_ms << " ms");
}
