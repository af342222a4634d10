// PathRecord and MultiPathRecord answers: every pair of swept fabrics (fat
// tree with min-hop, torus with up*/down*, LMC 0 and 2) against an
// independent walk of the fabric model and LFTs; MTU and rate minima with a
// narrow link and a small-MTU port; every selector; NumbPath over LMC ranges;
// Reversible; P_Key; GID/LID resolution and its statuses; MultiPathRecord.
#include "sa/path_records.h"

#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/sa/multi_path_record.h"
#include "mad/wire/sa/path_record.h"
#include "routing/dfsssp.h"
#include "routing/engine.h"
#include "routing/graph.h"
#include "sa/link_rate.h"
#include "sm/sweep/routing_step.h"
#include "sm/topogen/generators.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::must;
using test::SweepHarness;

namespace {

// PathRecord ComponentMask bits as IBA 15.2.5.16 numbers them.
namespace pr {
constexpr uint64_t service_id_msb = 1u << 0, service_id_lsb = 1u << 1, dgid = 1u << 2, sgid = 1u << 3,
                   dlid = 1u << 4, slid = 1u << 5, raw_traffic = 1u << 6, flow_label = 1u << 8,
                   tclass = 1u << 10, reversible = 1u << 11, numb_path = 1u << 12, p_key = 1u << 13,
                   sl = 1u << 15, mtu_selector = 1u << 16, mtu = 1u << 17, rate_selector = 1u << 18,
                   rate = 1u << 19, plt_selector = 1u << 20, plt = 1u << 21;
}  // namespace pr
// MultiPathRecord (IBA 15.2.5.20).
namespace mpr {
constexpr uint64_t numb_path = 1u << 6, sl = 1u << 9, service_id_msb = 1u << 16, sgid_count = 1u << 19,
                   dgid_count = 1u << 20, service_id_lsb = 1u << 21;
}

// Rate codes by Gb/s x 10 (IBA 15.2.5.16), for the rates these fabrics have.
uint8_t rate_code(uint32_t gbps10) {
  switch (gbps10) {
    case 25: return 2;
    case 50: return 5;
    case 100: return 3;
    case 200: return 6;
    case 300: return 4;
    case 400: return 7;
    case 1200: return 10;
    default: FAIL("no rate code for " << gbps10); return 0;
  }
}
uint32_t lanes(uint8_t width) { return width == 1 ? 1 : width == 2 ? 4 : width == 4 ? 8 : width == 8 ? 12 : 2; }
uint32_t port_gbps10(const Port& p) {
  const uint32_t lane = p.speed_active == 1 ? 25 : p.speed_active == 2 ? 50 : 100;
  return lanes(p.width_active) * lane;
}

struct Walk {
  int cables = 0;
  uint8_t mtu = 0;
  uint32_t gbps10 = UINT32_MAX;
};

// Follows `dlid` from `src` through the fabric model's cables and the LFTs:
// the expectations the SA's answers are checked against.
std::optional<Walk> walk(const sa::SaSnapshot& s, const sa::EndPort& src, const sa::EndPort& dst, Lid dlid) {
  const Fabric& f = s.fabric;
  auto cap = [&](NodeIndex n, uint8_t p) { return s.port_info[n.value][p].mtu_cap; };
  Walk w;
  if (src.ref == dst.ref) {
    w.mtu = cap(src.ref.node, src.ref.port);
    w.gbps10 = port_gbps10(f.node(src.ref.node).port(src.ref.port));
    return w;
  }
  w.mtu = 0xFF;
  auto cross = [&](NodeIndex n, uint8_t p) -> std::optional<PortRef> {
    const Port& here = f.node(n).port(p);
    if (!here.connected()) return std::nullopt;
    const Port& there = f.node(here.remote_node).port(here.remote_port);
    if (here.state != PortState::active || there.state != PortState::active) return std::nullopt;
    ++w.cables;
    w.mtu = std::min({w.mtu, cap(n, p), cap(here.remote_node, here.remote_port)});
    w.gbps10 = std::min({w.gbps10, port_gbps10(here), port_gbps10(there)});
    return PortRef{here.remote_node, here.remote_port};
  };
  NodeIndex at = src.ref.node;
  if (f.node(at).is_switch()) {
    w.mtu = cap(at, 0);
  } else {
    auto next = cross(at, src.ref.port);
    if (!next) return std::nullopt;
    if (!f.node(next->node).is_switch()) return *next == dst.ref ? std::optional(w) : std::nullopt;
    at = next->node;
  }
  for (int guard = 0; guard < 100; ++guard) {
    const auto& lft = s.lft(at);
    if (dlid.value >= lft.size()) return std::nullopt;
    const uint8_t out = lft[dlid.value];
    if (out == 0) {
      if (at != dst.ref.node) return std::nullopt;
      w.mtu = std::min(w.mtu, cap(at, 0));
      return w;
    }
    if (out > f.node(at).num_ports) return std::nullopt;
    auto next = cross(at, out);
    if (!next) return std::nullopt;
    if (!f.node(next->node).is_switch()) return *next == dst.ref ? std::optional(w) : std::nullopt;
    at = next->node;
  }
  return std::nullopt;
}

wire::Gid gid_of(const sa::SaSnapshot& s, const sa::EndPort& e) {
  return wire::Gid::from_parts(s.subnet_prefix, e.guid.value);
}
Lid lid_plus(Lid l, uint32_t k) { return Lid{static_cast<uint16_t>(l.value + k)}; }

sa::SaQueryResult path_query(const sa::SaSnapshot& s, uint8_t method, uint64_t mask, const wire::PathRecord& t,
                             Lid requester = {}) {
  auto e = test::encoded_query(method, wire::sa_attr::path_record, mask, t, wire::sa_record_size::path, requester);
  return sa::run_path_query(s, e.query);
}

wire::PathRecord path_record(const sa::SaQueryResult& r, size_t i) {
  REQUIRE(i < r.count);
  auto d = wire::decode_path_record(r.record(i));
  REQUIRE(d.ok());
  return *d;
}

// A Get by SLID and DLID.
sa::SaQueryResult get_by_lids(const sa::SaSnapshot& s, Lid slid, Lid dlid, uint64_t more_mask = 0,
                              wire::PathRecord t = {}) {
  t.slid = slid;
  t.dlid = dlid;
  return path_query(s, wire::method::get, pr::slid | pr::dlid | more_mask, t);
}

// Every (source LID, destination LID) of every pair of end ports: the SA's
// answer exists exactly when the walk delivers, and carries what the walk saw.
void check_every_pair(const sa::SaSnapshot& s, bool all_routed = true) {
  size_t paths = 0, multi_hop = 0;
  for (const sa::EndPort& src : s.endports) {
    for (const sa::EndPort& dst : s.endports) {
      for (uint32_t i = 0; i < (1u << src.lmc); ++i) {
        for (uint32_t j = 0; j < (1u << dst.lmc); ++j) {
          const Lid slid = lid_plus(src.base_lid, i), dlid = lid_plus(dst.base_lid, j);
          INFO(fmt::format("{} lid {} -> {} lid {}", src.guid, slid, dst.guid, dlid));
          const auto expected = walk(s, src, dst, dlid);
          const auto back = walk(s, dst, src, slid);
          const auto traced = sa::trace_path(s, src, dst, dlid);
          REQUIRE(traced.has_value() == expected.has_value());
          auto r = get_by_lids(s, slid, dlid);
          if (!expected) {
            CHECK(r.status == wire::sa_status::no_records);
            continue;
          }
          ++paths;
          if (expected->cables > 2) ++multi_hop;
          CHECK(traced->hops == expected->cables);
          REQUIRE(r.status == 0);
          REQUIRE(r.count == 1);
          const wire::PathRecord p = path_record(r, 0);
          CHECK(p.slid == slid);
          CHECK(p.dlid == dlid);
          CHECK(p.sgid == gid_of(s, src));
          CHECK(p.dgid == gid_of(s, dst));
          CHECK(p.mtu == expected->mtu);
          CHECK(p.rate == rate_code(expected->gbps10));
          CHECK(p.mtu_selector == wire::sa_selector::exactly);
          CHECK(p.packet_life_time == (src.ref == dst.ref ? 0 : 18));
          CHECK(p.reversible == back.has_value());
          CHECK(p.p_key == 0xFFFF);
          CHECK(p.sl == 0);
          CHECK(p.hop_limit == 0);
          CHECK(p.numb_path == 0);
          CHECK(p.preference == 0);  // SLID and DLID given: one LID pair, the preferred kind
        }
      }
    }
  }
  // Routed fabrics: every pair delivers, many across several switches.
  size_t combos = 0;
  for (const sa::EndPort& a : s.endports)
    for (const sa::EndPort& b : s.endports) combos += size_t{1} << (a.lmc + b.lmc);
  CHECK((paths == combos) == all_routed);
  CHECK(multi_hop > 0);
}

const sa::EndPort& first_ca(const sa::SaSnapshot& s, size_t skip = 0) {
  for (const sa::EndPort& e : s.endports)
    if (!s.fabric.node(e.ref.node).is_switch() && skip-- == 0) return e;
  FAIL("not enough cas");
  return s.endports.front();
}

// The CA farthest (in cables) from `a`.
const sa::EndPort& far_ca(const sa::SaSnapshot& s, const sa::EndPort& a) {
  const sa::EndPort* best = nullptr;
  int most = -1;
  for (const sa::EndPort& e : s.endports) {
    if (s.fabric.node(e.ref.node).is_switch()) continue;
    auto w = walk(s, a, e, e.base_lid);
    if (w && w->cables > most) {
      most = w->cables;
      best = &e;
    }
  }
  REQUIRE(best != nullptr);
  return *best;
}

}  // namespace

TEST_CASE("link rates map onto IBA's rate codes", "[sa][path]") {
  // (width, speed, extended speed) -> code, from the spec's Rate table.
  struct Row {
    uint8_t width, speed, ext, code;
  };
  const Row rows[] = {
      {link_width::x1, link_speed::sdr, 0, 2},  {link_width::x4, link_speed::sdr, 0, 3},
      {link_width::x12, link_speed::sdr, 0, 4}, {link_width::x1, link_speed::ddr, 0, 5},
      {link_width::x4, link_speed::ddr, 0, 6},  {link_width::x4, link_speed::qdr, 0, 7},
      {link_width::x8, link_speed::qdr, 0, 9},  {link_width::x12, link_speed::qdr, 0, 10},
      {link_width::x1, 0, link_speed_ext::fdr, 11}, {link_width::x4, 0, link_speed_ext::fdr, 12},
      {link_width::x4, 0, link_speed_ext::edr, 16}, {link_width::x12, 0, link_speed_ext::edr, 18},
      {link_width::x2, 0, link_speed_ext::edr, 20}, {link_width::x4, 0, link_speed_ext::hdr, 17},
      {link_width::x4, 0, link_speed_ext::ndr, 21}, {link_width::x2, link_speed::qdr, 0, 6},
  };
  for (const Row& r : rows) {
    INFO(int{r.width} << " " << int{r.speed} << " " << int{r.ext});
    CHECK(sa::rate_code_at_most(sa::link_mbps(r.width, r.speed, r.ext)) == r.code);
  }
  CHECK(sa::link_mbps(3, link_speed::qdr, 0) == 0);  // no such width
  CHECK(sa::rate_code_below(7) == 4);   // under 40 Gb/s: 30
  CHECK(sa::rate_code_below(11) == 3);  // under 14 Gb/s: 10
  CHECK(sa::rate_code_below(2) == 0);
  CHECK(sa::rate_mbps(1) == 0);
}

TEST_CASE("path records of every pair follow the lfts", "[sa][path]") {
  const uint8_t lmc = GENERATE(uint8_t{0}, uint8_t{2});
  SECTION("fat tree, min-hop") {
    SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
    check_every_pair(test::swept_snapshot(h, lmc));
  }
  SECTION("torus, up*/down*") {
    SweepHarness h(must(topogen::mesh({.dims = {3, 3}, .torus = true, .hosts_per_switch = 1})));
    h.config().route = SweepHarness::route_function("updn");
    check_every_pair(test::swept_snapshot(h, lmc));
  }
}

TEST_CASE("path mtu and rate are the least along the path", "[sa][path]") {
  // A fat tree whose first leaf-to-spine cable is 1x and whose first CA port
  // can only take 256-byte packets; everything else 4x QDR and 2048 bytes.
  Fabric f = must(topogen::kary_ntree({.k = 2, .n = 2, .link = {.width = link_width::x4, .speed = link_speed::qdr}}));
  PortRef narrow_a, narrow_b;
  for (uint32_t i = 0; i < f.node_count() && !narrow_a.node.valid(); ++i) {
    Node& n = f.node(NodeIndex{i});
    if (!n.is_switch()) continue;
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      Port& port = n.port(p);
      if (port.connected() && f.node(port.remote_node).is_switch()) {
        narrow_a = PortRef{NodeIndex{i}, p};
        narrow_b = PortRef{port.remote_node, port.remote_port};
        break;
      }
    }
  }
  REQUIRE(narrow_a.node.valid());
  f.node(narrow_a.node).port(narrow_a.port).width_active = link_width::x1;
  f.node(narrow_b.node).port(narrow_b.port).width_active = link_width::x1;
  SweepHarness h(std::move(f));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const sa::EndPort& small = first_ca(s);
  s.port_info[small.ref.node.value][small.ref.port].mtu_cap = 1;  // 256 bytes
  s.index();

  check_every_pair(s);
  // The minima really are in there: some path crosses the 1x cable (10 Gb/s,
  // code 3), every path from the small port has MTU 256, others 2048.
  bool saw_narrow = false, saw_wide = false;
  for (const sa::EndPort& a : s.endports) {
    for (const sa::EndPort& b : s.endports) {
      auto r = get_by_lids(s, a.base_lid, b.base_lid);
      REQUIRE(r.count == 1);
      const wire::PathRecord p = path_record(r, 0);
      if (a.ref != b.ref && !s.fabric.node(a.ref.node).is_switch() && !s.fabric.node(b.ref.node).is_switch()) {
        (p.rate == 3 ? saw_narrow : saw_wide) = true;
        CHECK(p.mtu == ((a.ref == small.ref || b.ref == small.ref) ? 1 : 4));
      }
    }
  }
  CHECK(saw_narrow);
  CHECK(saw_wide);
}

TEST_CASE("a dead link, a missing entry or a loop gives no path", "[sa][path]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const sa::EndPort& a = first_ca(s);
  const sa::EndPort& b = far_ca(s, a);
  const NodeIndex leaf = s.fabric.node(a.ref.node).port(a.ref.port).remote_node;
  const uint8_t up = s.lft(leaf)[b.base_lid.value];
  const Port& up_port = s.fabric.node(leaf).port(up);
  REQUIRE(s.fabric.node(up_port.remote_node).is_switch());

  SECTION("a link gone down") {
    const PortRef far{up_port.remote_node, up_port.remote_port};
    s.fabric.node(leaf).port(up).state = PortState::down;
    s.fabric.node(far.node).port(far.port).state = PortState::down;
    s.index();
    CHECK(get_by_lids(s, a.base_lid, b.base_lid).status == wire::sa_status::no_records);
    check_every_pair(s, false);
  }
  SECTION("no entry") {
    s.lft_for_write(leaf)[b.base_lid.value] = routing::kNoRoute;
    CHECK_FALSE(sa::trace_path(s, a, b, b.base_lid).has_value());
    CHECK(get_by_lids(s, a.base_lid, b.base_lid).status == wire::sa_status::no_records);
    check_every_pair(s, false);
  }
  SECTION("a loop between two switches") {
    s.lft_for_write(up_port.remote_node)[b.base_lid.value] = up_port.remote_port;  // back down to the leaf
    CHECK_FALSE(sa::trace_path(s, a, b, b.base_lid).has_value());
    CHECK(get_by_lids(s, a.base_lid, b.base_lid).status == wire::sa_status::no_records);
    check_every_pair(s, false);
  }
}

TEST_CASE("path selectors filter or pick", "[sa][path]") {
  const topogen::LinkOptions qdr4x{.width = link_width::x4, .speed = link_speed::qdr};
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 2, .link = qdr4x})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const sa::EndPort& a = first_ca(s);
  const sa::EndPort& b = far_ca(s, a);
  // The path: MTU 2048 (4), 4x QDR = 40 Gb/s (7), lifetime 18.
  auto with = [&](uint64_t mask, auto set) {
    wire::PathRecord t;
    set(t);
    return get_by_lids(s, a.base_lid, b.base_lid, mask, t);
  };
  auto mtu = [&](uint8_t sel, uint8_t v) {
    return with(pr::mtu_selector | pr::mtu, [&](wire::PathRecord& t) { t.mtu_selector = sel; t.mtu = v; });
  };
  auto rate = [&](uint8_t sel, uint8_t v) {
    return with(pr::rate_selector | pr::rate, [&](wire::PathRecord& t) { t.rate_selector = sel; t.rate = v; });
  };
  auto plt = [&](uint8_t sel, uint8_t v) {
    return with(pr::plt_selector | pr::plt,
                [&](wire::PathRecord& t) { t.packet_life_time_selector = sel; t.packet_life_time = v; });
  };
  auto value = [&](const sa::SaQueryResult& r, uint8_t wire::PathRecord::*field) -> int {
    if (r.count != 1) return -static_cast<int>(r.status >> 8);  // -3: no records
    return path_record(r, 0).*field;
  };
  namespace sel = wire::sa_selector;
  const int none = -3;
  REQUIRE(value(get_by_lids(s, a.base_lid, b.base_lid), &wire::PathRecord::mtu) == 4);

  CHECK(value(mtu(sel::greater_than, 3), &wire::PathRecord::mtu) == 4);
  CHECK(value(mtu(sel::greater_than, 4), &wire::PathRecord::mtu) == none);
  CHECK(value(mtu(sel::less_than, 4), &wire::PathRecord::mtu) == 3);  // lowered below the limit
  CHECK(value(mtu(sel::less_than, 5), &wire::PathRecord::mtu) == 4);
  CHECK(value(mtu(sel::less_than, 1), &wire::PathRecord::mtu) == none);
  CHECK(value(mtu(sel::exactly, 2), &wire::PathRecord::mtu) == 2);
  CHECK(value(mtu(sel::exactly, 5), &wire::PathRecord::mtu) == none);
  CHECK(value(mtu(sel::largest, 1), &wire::PathRecord::mtu) == 4);
  CHECK(mtu(sel::exactly, 6).status == wire::sa_status::req_invalid);
  CHECK(value(with(pr::mtu, [](wire::PathRecord& t) { t.mtu = 4; }), &wire::PathRecord::mtu) == 4);
  CHECK(value(with(pr::mtu, [](wire::PathRecord& t) { t.mtu = 3; }), &wire::PathRecord::mtu) == none);
  CHECK(value(with(pr::mtu_selector, [](wire::PathRecord& t) { t.mtu_selector = sel::greater_than; }),
              &wire::PathRecord::mtu) == 4);  // a selector alone is ignored

  CHECK(value(rate(sel::greater_than, 3), &wire::PathRecord::rate) == 7);   // > 10 Gb/s
  CHECK(value(rate(sel::greater_than, 4), &wire::PathRecord::rate) == 7);   // > 30 Gb/s (code 4 < code 7 by speed)
  CHECK(value(rate(sel::greater_than, 7), &wire::PathRecord::rate) == none);
  CHECK(value(rate(sel::greater_than, 11), &wire::PathRecord::rate) == 7);  // > 14 Gb/s (code 11 > code 7)
  CHECK(value(rate(sel::greater_than, 12), &wire::PathRecord::rate) == none);  // > 56 Gb/s
  CHECK(value(rate(sel::less_than, 7), &wire::PathRecord::rate) == 4);     // the fastest under 40: 30 Gb/s
  CHECK(value(rate(sel::less_than, 16), &wire::PathRecord::rate) == 7);    // < 100 Gb/s: its own
  CHECK(value(rate(sel::less_than, 2), &wire::PathRecord::rate) == none);
  CHECK(value(rate(sel::exactly, 6), &wire::PathRecord::rate) == 6);       // 20 Gb/s
  CHECK(value(rate(sel::exactly, 16), &wire::PathRecord::rate) == none);
  CHECK(value(rate(sel::largest, 2), &wire::PathRecord::rate) == 7);
  CHECK(rate(sel::exactly, 1).status == wire::sa_status::req_invalid);

  CHECK(value(plt(sel::greater_than, 17), &wire::PathRecord::packet_life_time) == 18);
  CHECK(value(plt(sel::greater_than, 18), &wire::PathRecord::packet_life_time) == none);
  CHECK(value(plt(sel::less_than, 19), &wire::PathRecord::packet_life_time) == 18);
  CHECK(value(plt(sel::less_than, 18), &wire::PathRecord::packet_life_time) == none);
  CHECK(value(plt(sel::exactly, 18), &wire::PathRecord::packet_life_time) == 18);
  CHECK(value(plt(sel::exactly, 10), &wire::PathRecord::packet_life_time) == none);
  CHECK(value(plt(sel::smallest, 30), &wire::PathRecord::packet_life_time) == 18);
}

TEST_CASE("numb_path caps the paths of an lmc range, in preference order", "[sa][path]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h, 2);
  const sa::EndPort& a = first_ca(s);
  const sa::EndPort& b = far_ca(s, a);
  wire::PathRecord t;
  t.sgid = gid_of(s, a);
  t.dgid = gid_of(s, b);
  auto table = path_query(s, wire::method::get_table, pr::sgid | pr::dgid, t);
  REQUIRE(table.status == 0);
  REQUIRE(table.count == 16);  // 4 x 4 LIDs
  std::set<std::pair<uint16_t, uint16_t>> seen;
  for (size_t i = 0; i < table.count; ++i) {
    const wire::PathRecord p = path_record(table, i);
    const uint32_t si = p.slid.value - a.base_lid.value, di = p.dlid.value - b.base_lid.value;
    REQUIRE(si < 4);
    REQUIRE(di < 4);
    seen.insert({p.slid.value, p.dlid.value});
    // The four pairs on their own LIDs first (Preference 0), then the rest.
    CHECK((i < 4) == (si == di));
    CHECK(p.preference == (si == di ? 0 : 2));
  }
  CHECK(seen.size() == 16);

  for (uint8_t n : {uint8_t{0}, uint8_t{1}, uint8_t{3}, uint8_t{6}, uint8_t{20}}) {
    t.numb_path = n;
    auto r = path_query(s, wire::method::get_table, pr::sgid | pr::dgid | pr::numb_path, t);
    REQUIRE(r.status == 0);
    REQUIRE(r.count == std::min<size_t>(n, 16));
    for (size_t i = 0; i < r.count; ++i) {
      auto rec = r.record(i);
      auto full = table.record(i);
      CHECK(std::equal(rec.begin(), rec.end(), full.begin()));  // the first n of the whole table
    }
  }
  // A Get is NumbPath 1: the base LIDs' path.
  auto one = path_query(s, wire::method::get, pr::sgid | pr::dgid, t);
  REQUIRE(one.count == 1);
  CHECK(path_record(one, 0).slid == a.base_lid);
  CHECK(path_record(one, 0).dlid == b.base_lid);
  // SLID narrows the source to one LID of the range: 4 paths left.
  t.slid = lid_plus(a.base_lid, 3);
  auto narrowed = path_query(s, wire::method::get_table, pr::sgid | pr::dgid | pr::slid, t);
  REQUIRE(narrowed.count == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(path_record(narrowed, i).slid == t.slid);
}

TEST_CASE("reversible asks for a way back", "[sa][path]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const sa::EndPort& a = first_ca(s);
  const sa::EndPort& b = far_ca(s, a);
  // a's own switch drops a's LID: b -> a dies there, a -> b still works.
  const NodeIndex leaf = s.fabric.node(a.ref.node).port(a.ref.port).remote_node;
  s.lft_for_write(leaf)[a.base_lid.value] = routing::kNoRoute;

  auto plain = get_by_lids(s, a.base_lid, b.base_lid);
  REQUIRE(plain.count == 1);
  CHECK_FALSE(path_record(plain, 0).reversible);
  wire::PathRecord t;
  t.reversible = true;
  CHECK(get_by_lids(s, a.base_lid, b.base_lid, pr::reversible, t).status == wire::sa_status::no_records);
  t.reversible = false;  // 0 is "don't care"
  CHECK(get_by_lids(s, a.base_lid, b.base_lid, pr::reversible, t).count == 1);
  CHECK(get_by_lids(s, b.base_lid, a.base_lid).status == wire::sa_status::no_records);
  // An untouched pair is reversible, and answers Reversible=1 when asked.
  const sa::EndPort& c = first_ca(s, 1).ref == b.ref ? first_ca(s, 2) : first_ca(s, 1);
  t.reversible = true;
  auto both = get_by_lids(s, b.base_lid, c.base_lid, pr::reversible, t);
  REQUIRE(both.count == 1);
  CHECK(path_record(both, 0).reversible);
}

TEST_CASE("path records resolve gids and lids, and answer the spec's statuses", "[sa][path]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 2})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  const sa::EndPort& a = first_ca(s);
  const sa::EndPort& b = far_ca(s, a);
  auto by_gids = [&](uint8_t method, wire::Gid sgid, wire::Gid dgid, uint64_t more = 0, wire::PathRecord t = {}) {
    t.sgid = sgid;
    t.dgid = dgid;
    return path_query(s, method, pr::sgid | pr::dgid | more, t);
  };
  const uint8_t get = wire::method::get, table = wire::method::get_table;

  auto ok = by_gids(get, gid_of(s, a), gid_of(s, b));
  REQUIRE(ok.count == 1);
  CHECK(path_record(ok, 0).slid == a.base_lid);
  CHECK(path_record(ok, 0).dlid == b.base_lid);

  SECTION("unknown guid, foreign prefix, unknown lid") {
    const wire::Gid unknown = wire::Gid::from_parts(s.subnet_prefix, 0x1234);
    const wire::Gid foreign = wire::Gid::from_parts(0xfec0000000000000ULL, b.guid.value);
    CHECK(by_gids(get, gid_of(s, a), unknown).status == wire::sa_status::no_records);
    CHECK(by_gids(get, unknown, gid_of(s, b)).status == wire::sa_status::no_records);
    CHECK(by_gids(get, gid_of(s, a), foreign).status == wire::sa_status::no_records);
    CHECK(by_gids(table, gid_of(s, a), unknown).status == wire::sa_status::req_gid_invalid);
    CHECK(by_gids(table, foreign, gid_of(s, b)).status == wire::sa_status::req_gid_invalid);
    CHECK(get_by_lids(s, a.base_lid, Lid{999}).status == wire::sa_status::no_records);
    CHECK(get_by_lids(s, Lid{999}, b.base_lid).status == wire::sa_status::no_records);
    wire::PathRecord t;
    t.slid = a.base_lid;
    t.dlid = Lid{999};
    auto empty = path_query(s, table, pr::slid | pr::dlid, t);
    CHECK(empty.status == 0);
    CHECK(empty.count == 0);
  }
  SECTION("a link-local prefix names a port of this subnet; records carry the subnet prefix") {
    s.subnet_prefix = 0xfec0000000000000ULL;
    auto r = by_gids(get, wire::Gid::from_parts(0xfe80000000000000ULL, a.guid.value),
                     wire::Gid::from_parts(0xfe80000000000000ULL, b.guid.value));
    REQUIRE(r.count == 1);
    CHECK(path_record(r, 0).sgid.prefix() == 0xfec0000000000000ULL);
  }
  SECTION("sgid and slid must name the same port") {
    wire::PathRecord t;
    t.slid = b.base_lid;
    CHECK(by_gids(get, gid_of(s, a), gid_of(s, b), pr::slid, t).status == wire::sa_status::no_records);
    t.slid = a.base_lid;
    CHECK(by_gids(get, gid_of(s, a), gid_of(s, b), pr::slid, t).count == 1);
  }
  SECTION("p_key: the default partition, either membership") {
    wire::PathRecord t;
    t.p_key = 0xFFFF;
    auto full = by_gids(get, gid_of(s, a), gid_of(s, b), pr::p_key, t);
    REQUIRE(full.count == 1);
    CHECK(path_record(full, 0).p_key == 0xFFFF);
    t.p_key = 0x7FFF;
    auto limited = by_gids(get, gid_of(s, a), gid_of(s, b), pr::p_key, t);
    REQUIRE(limited.count == 1);
    CHECK(path_record(limited, 0).p_key == 0x7FFF);
    t.p_key = 0x8001;
    CHECK(by_gids(get, gid_of(s, a), gid_of(s, b), pr::p_key, t).status == wire::sa_status::no_records);
    CHECK(by_gids(table, gid_of(s, a), gid_of(s, b), pr::p_key, t).count == 0);
  }
  SECTION("the requester's choices are answered as asked (what rdma_cm sends)") {
    wire::PathRecord t;
    t.service_id = 0x0000000001060000ULL | 0x1234;
    t.tclass = 0x20;
    t.flow_label = 0x12345;
    t.numb_path = 1;
    t.reversible = true;
    auto r = by_gids(get, gid_of(s, a), gid_of(s, b),
                     pr::service_id_msb | pr::service_id_lsb | pr::tclass | pr::flow_label | pr::numb_path |
                         pr::reversible | pr::p_key | pr::raw_traffic,
                     [&] {
                       t.p_key = 0xFFFF;
                       return t;
                     }());
    REQUIRE(r.count == 1);
    const wire::PathRecord p = path_record(r, 0);
    CHECK(p.service_id == t.service_id);
    CHECK(p.tclass == 0x20);
    CHECK(p.flow_label == 0x12345);
    CHECK(p.hop_limit == 0);
    CHECK(p.numb_path == 0);
    CHECK(p.reversible);
  }
  SECTION("no source or no destination named: every end port, in port GUID order (OpenSM's world query)") {
    wire::PathRecord t;
    t.dlid = b.base_lid;
    // A Get needs exactly one: every source to b is too many.
    CHECK(path_query(s, get, pr::dlid, t, a.base_lid).status == wire::sa_status::too_many_records);
    auto to_b = path_query(s, table, pr::dlid, t, a.base_lid);
    REQUIRE(to_b.status == 0);
    REQUIRE(to_b.count == s.endports.size());
    for (size_t i = 0; i < to_b.count; ++i) {
      CHECK(path_record(to_b, i).sgid == gid_of(s, s.endports[i]));  // port GUID order
      CHECK(path_record(to_b, i).dlid == b.base_lid);
    }

    t = {};
    t.sgid = gid_of(s, a);
    auto all = path_query(s, table, pr::sgid, t);
    REQUIRE(all.status == 0);
    REQUIRE(all.count == s.endports.size());
    for (size_t i = 0; i < all.count; ++i) {
      CHECK(path_record(all, i).dgid == gid_of(s, s.endports[i]));  // port GUID order
      CHECK(path_record(all, i).sgid == gid_of(s, a));
    }
    // Nothing named: every pair, sources major, whoever asks (osmtest -f v
    // compares its first records with a query from the lowest port).
    const size_t n = s.endports.size();
    auto world = path_query(s, table, 0, {}, b.base_lid);
    REQUIRE(world.count == n * n);
    for (size_t i = 0; i < world.count; i += n + 1) {
      CHECK(path_record(world, i).sgid == gid_of(s, s.endports[i / n]));
      CHECK(path_record(world, i).dgid == gid_of(s, s.endports[i % n]));
    }
    CHECK(path_query(s, get, pr::sgid, t).status == wire::sa_status::too_many_records);
  }
  SECTION("path_sl decides the sl; a masked sl must agree") {
    s.path_sl = [](Lid slid, Lid dlid) { return static_cast<uint8_t>((slid.value * 3 + dlid.value) % 16); };
    const uint8_t expected = static_cast<uint8_t>((a.base_lid.value * 3 + b.base_lid.value) % 16);
    auto r = by_gids(get, gid_of(s, a), gid_of(s, b));
    REQUIRE(r.count == 1);
    CHECK(path_record(r, 0).sl == expected);
    wire::PathRecord t;
    t.sl = expected;
    CHECK(by_gids(get, gid_of(s, a), gid_of(s, b), pr::sl, t).count == 1);
    t.sl = static_cast<uint8_t>((expected + 1) % 16);
    CHECK(by_gids(get, gid_of(s, a), gid_of(s, b), pr::sl, t).status == wire::sa_status::no_records);
  }
  SECTION("methods, attributes and undefined mask bits") {
    sa::SaQuery q;
    q.attribute = wire::sa_attr::path_record;
    q.method = wire::method::set;
    CHECK(sa::run_path_query(s, q).outcome == sa::SaQueryOutcome::unsupported_method);
    q.method = wire::method::get_multi;
    CHECK(sa::run_path_query(s, q).outcome == sa::SaQueryOutcome::unsupported_method);
    q.attribute = wire::sa_attr::node_record;
    q.method = wire::method::get;
    CHECK(sa::run_path_query(s, q).outcome == sa::SaQueryOutcome::unsupported_attribute);
    CHECK(by_gids(get, gid_of(s, a), gid_of(s, b), uint64_t{1} << 24).status == wire::sa_status::req_invalid);
  }
}

namespace {

// A GetMulti request: the fixed part of `fixed`, then the GIDs (any number).
std::vector<uint8_t> multi_path_request(wire::MultiPathRecord fixed, const std::vector<wire::Gid>& sgids,
                                        const std::vector<wire::Gid>& dgids) {
  fixed.sgid_count = fixed.dgid_count = 0;
  std::vector<uint8_t> bytes(wire::sa_record_size::multi_path_fixed + 16 * (sgids.size() + dgids.size()));
  wire::encode(fixed, bytes);
  wire::set_field(bytes, wire::multi_path_record_fields::sgid_count, sgids.size());
  wire::set_field(bytes, wire::multi_path_record_fields::dgid_count, dgids.size());
  size_t i = 0;
  for (const auto* list : {&sgids, &dgids})
    for (const wire::Gid& g : *list) wire::set_gid(bytes, wire::multi_path_record_fields::gid(i++), g);
  return bytes;
}

sa::SaQueryResult multi_query(const sa::SaSnapshot& s, uint64_t mask, const std::vector<uint8_t>& bytes,
                              uint8_t method = wire::method::get_multi) {
  sa::SaQuery q;
  q.method = method;
  q.attribute = wire::sa_attr::multi_path_record;
  q.component_mask = mask;
  q.record = bytes;
  return sa::run_path_query(s, q);
}

}  // namespace

TEST_CASE("multipath records: every sgid with every dgid", "[sa][path][multipath]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  std::vector<const sa::EndPort*> cas;
  for (const sa::EndPort& e : s.endports)
    if (!s.fabric.node(e.ref.node).is_switch()) cas.push_back(&e);
  REQUIRE(cas.size() >= 5);
  std::vector<wire::Gid> sgids{gid_of(s, *cas[0]), gid_of(s, *cas[1])};
  std::vector<wire::Gid> dgids{gid_of(s, *cas[2]), gid_of(s, *cas[3]), gid_of(s, *cas[4])};
  const uint64_t counts = mpr::sgid_count | mpr::dgid_count;

  auto r = multi_query(s, counts, multi_path_request({}, sgids, dgids));
  REQUIRE(r.status == 0);
  REQUIRE(r.count == 6);
  CHECK(r.record_size == wire::sa_record_size::path);
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 3; ++j) {
      // Each is what a PathRecord GetTable for the pair answers.
      wire::PathRecord t;
      t.sgid = sgids[i];
      t.dgid = dgids[j];
      auto one = path_query(s, wire::method::get_table, pr::sgid | pr::dgid, t);
      REQUIRE(one.count == 1);
      auto got = r.record(i * 3 + j);
      auto want = one.record(0);
      CHECK(std::equal(got.begin(), got.end(), want.begin()));
    }
  }

  wire::MultiPathRecord fixed;
  fixed.numb_path = 4;
  CHECK(multi_query(s, counts | mpr::numb_path, multi_path_request(fixed, sgids, dgids)).count == 4);
  fixed.sl = 1;  // path SL is 0 here
  CHECK(multi_query(s, counts | mpr::sl, multi_path_request(fixed, sgids, dgids)).count == 0);

  // More GIDs than one MAD holds (the agent reassembled RMPP): 5 x 8.
  std::vector<wire::Gid> many_s, many_d;
  for (size_t i = 0; i < 5; ++i) many_s.push_back(gid_of(s, *cas[i % cas.size()]));
  for (size_t i = 0; i < 8; ++i) many_d.push_back(gid_of(s, *cas[(i + 1) % cas.size()]));
  auto big = multi_path_request({}, many_s, many_d);
  REQUIRE(big.size() > wire::sa_data_size);
  CHECK(multi_query(s, counts, big).count == 40);

  auto truncated = multi_path_request({}, sgids, dgids);
  truncated.resize(truncated.size() - 16);
  CHECK(multi_query(s, counts, truncated).status == wire::sa_status::req_invalid);
  CHECK(multi_query(s, counts, multi_path_request({}, sgids, {wire::Gid::from_parts(s.subnet_prefix, 0x42)})).status ==
        wire::sa_status::req_gid_invalid);
  CHECK(multi_query(s, counts, multi_path_request({}, sgids, dgids), wire::method::get_table).outcome ==
        sa::SaQueryOutcome::unsupported_method);
}

TEST_CASE("multipath records: the required components", "[sa][path][multipath]") {
  // SGIDCount and DGIDCount must be components (IBA 15.2.5.16), as must both
  // halves of ServiceID or neither: ERR_INSUFFICIENT_COMPONENTS, as OpenSM
  // answers osmtest's empty request. Counts given as zero are invalid.
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 2})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  std::vector<wire::Gid> gids;
  for (const sa::EndPort& e : s.endports)
    if (!s.fabric.node(e.ref.node).is_switch()) gids.push_back(gid_of(s, e));
  REQUIRE(gids.size() >= 2);
  const std::vector<wire::Gid> sgids{gids[0]}, dgids{gids[1]};
  const auto request = multi_path_request({}, sgids, dgids);
  const uint64_t counts = mpr::sgid_count | mpr::dgid_count;
  constexpr uint16_t insufficient = wire::sa_status::req_insufficient_components;

  CHECK(multi_query(s, 0, {}).status == insufficient);
  CHECK(multi_query(s, 0, request).status == insufficient);
  CHECK(multi_query(s, mpr::sgid_count, request).status == insufficient);
  CHECK(multi_query(s, mpr::dgid_count, request).status == insufficient);
  CHECK(multi_query(s, counts | mpr::service_id_msb, request).status == insufficient);
  CHECK(multi_query(s, counts | mpr::service_id_lsb, request).status == insufficient);
  CHECK(multi_query(s, counts | mpr::service_id_msb | mpr::service_id_lsb, request).status == 0);
  CHECK(multi_query(s, counts, request).count == 1);
  CHECK(multi_query(s, counts, multi_path_request({}, {}, dgids)).status == wire::sa_status::req_invalid);
}

TEST_CASE("path records respect partitions: shared key with a full member, requester in the partition",
          "[sa][path][partitions]") {
  // One switch, four hosts; the SM on H1. A: H1, H2 full. B: H3 full.
  // L: H2 and H3 limited. Everybody else is a limited member of the
  // Default partition (OpenSM's, with a file), the SM a full one.
  Fabric f = test::one_switch_fabric({"H1", "H2", "H3", "H4"});
  std::map<std::string, Guid> guids;
  for (uint32_t i = 0; i < f.node_count(); ++i) guids[f.node(NodeIndex{i}).name] = f.node(NodeIndex{i}).port(1).guid;
  auto guid = [&](const char* name) { return guids.at(name); };
  std::istringstream conf(fmt::format("A=0x1 : {}=full, {}=full ;\nB=0x2 : {}=full ;\nL=0x3 : {}, {} ;\n",
                                      guid("H1"), guid("H2"), guid("H3"), guid("H2"), guid("H3")));
  auto partitions = read_partitions_conf(conf, "partitions.conf");
  REQUIRE(partitions.ok());
  SweepHarness h(std::move(f));
  h.config().partitions = std::make_shared<const PartitionConfig>(std::move(*partitions));
  sa::SaSnapshot s = test::swept_snapshot(h);
  auto port = [&](const char* name) -> const sa::EndPort& {
    const sa::EndPort* e = s.by_port_guid(guid(name));
    REQUIRE(e != nullptr);
    return *e;
  };
  const sa::EndPort &h1 = port("H1"), &h2 = port("H2"), &h3 = port("H3"), &h4 = port("H4");
  const uint8_t get = wire::method::get;
  auto between = [&](const sa::EndPort& a, const sa::EndPort& b, Lid requester, uint64_t more = 0,
                     wire::PathRecord t = {}) {
    t.sgid = gid_of(s, a);
    t.dgid = gid_of(s, b);
    return path_query(s, get, pr::sgid | pr::dgid | more, t, requester);
  };

  SECTION("no P_Key asked: the lowest partition shared with a full member, as the source holds it") {
    auto r = between(h1, h2, h1.base_lid);
    REQUIRE(r.count == 1);
    CHECK(path_record(r, 0).p_key == 0x8001);
    // H1 and H4 share only the Default partition (H1 full, H4 limited).
    auto d = between(h4, h1, h1.base_lid);
    REQUIRE(d.count == 1);
    CHECK(path_record(d, 0).p_key == 0x7FFF);
  }
  SECTION("limited with limited is no path; neither is a pair with nothing shared") {
    CHECK(between(h2, h3, h1.base_lid).status == wire::sa_status::no_records);
    CHECK(between(h2, h4, h1.base_lid).status == wire::sa_status::no_records);
    wire::PathRecord t;
    t.p_key = 0x0003;
    CHECK(between(h2, h3, h1.base_lid, pr::p_key, t).status == wire::sa_status::no_records);
    auto table = path_query(s, wire::method::get_table, pr::sgid, [&] {
      wire::PathRecord x;
      x.sgid = gid_of(s, h2);
      return x;
    }(), h2.base_lid);
    // H2 reaches itself and H1 (A), nobody else.
    CHECK(table.count == 2);
  }
  SECTION("a P_Key asked must be shared by the pair") {
    wire::PathRecord t;
    t.p_key = 0x8001;
    auto r = between(h1, h2, h1.base_lid, pr::p_key, t);
    REQUIRE(r.count == 1);
    CHECK(path_record(r, 0).p_key == 0x8001);
    CHECK(between(h1, h3, h1.base_lid, pr::p_key, t).status == wire::sa_status::no_records);
    t.p_key = 0x0002;
    CHECK(between(h1, h3, h1.base_lid, pr::p_key, t).status == wire::sa_status::no_records);
  }
  SECTION("a requester gets no path in a partition it is not in, nor between ports it shares none with") {
    wire::PathRecord t;
    t.p_key = 0x7FFF;
    // H1 and H3 share the Default partition; H2 holds it too (limited) but
    // shares no partition with H3, so it is not told of their path.
    CHECK(between(h1, h3, h1.base_lid, pr::p_key, t).count == 1);
    CHECK(between(h1, h3, h2.base_lid, pr::p_key, t).status == wire::sa_status::no_records);
    t.p_key = 0x0002;
    CHECK(between(h3, h3, h2.base_lid, pr::p_key, t).status == wire::sa_status::no_records);
    CHECK(between(h3, h3, h3.base_lid, pr::p_key, t).count == 1);
  }
  SECTION("multipath records follow the same rules") {
    const uint64_t counts = mpr::sgid_count | mpr::dgid_count;
    auto r = multi_query(s, counts, multi_path_request({}, {gid_of(s, h2)}, {gid_of(s, h1), gid_of(s, h3)}));
    REQUIRE(r.status == 0);
    REQUIRE(r.count == 1);
    CHECK(test::decoded(wire::decode_path_record(r.record(0))).dgid == gid_of(s, h1));
  }
}

TEST_CASE("a wildcard PathRecord table of more than 2^20 port pairs is refused, not built", "[sa][path]") {
  // 1,040 hosts and 28 switches: 1,068 end ports, 1,140,624 pairs.
  sa::SaSnapshot s = test::offline_snapshot(must(topogen::leaf_spine({.leaves = 26, .spines = 2, .hosts_per_leaf = 40})));
  REQUIRE(s.endports.size() * s.endports.size() > (size_t{1} << 20));
  const Lid requester = s.endports.front().base_lid;
  CHECK(path_query(s, wire::method::get_table, 0, {}, requester).status == wire::sa_status::no_resources);
  // One end named: a table of 1,068 pairs is answered.
  wire::PathRecord t;
  t.sgid = gid_of(s, s.endports.front());
  CHECK(path_query(s, wire::method::get_table, pr::sgid, t, requester).status == 0);
}

TEST_CASE("PathRecords carry the SLs of the engine the sweep routed with (dfsssp on a ring)", "[sa][path][sl]") {
  // A ring of five: the shortest paths one way round close a cycle, so
  // dfsssp needs a second layer.
  SweepHarness h(must(topogen::mesh({.dims = {5}, .torus = true, .hosts_per_switch = 2})));
  auto route = make_route_function("dfsssp", null_log_sink());
  REQUIRE(route.ok());
  h.config().route = *route;
  SweepReport report = h.heavy();
  REQUIRE(report.subnet_up);
  REQUIRE(report.routes.engine == "dfsssp");
  auto built = sa::build_sa_snapshot(*report.subnet, test::sa_options());
  REQUIRE(built.ok());
  const sa::SaSnapshot& s = *built;
  // The SLs as a fresh dfsssp gives them on the fabric the sweep configured.
  auto built_graph = routing::RoutingGraph::build(report.subnet->fabric);
  REQUIRE(built_graph.ok());
  const routing::RoutingGraph& graph = *built_graph;
  routing::DfssspEngine engine;
  REQUIRE(engine.compute(routing::RoutingInput{.graph = graph}).ok());
  REQUIRE(engine.layers() > 1);
  // The sweep's engine and fabric are gone by now: the SA reads only what it owns.
  report = SweepReport{};
  std::set<uint8_t> seen;
  for (const sa::EndPort& src : s.endports) {
    for (const sa::EndPort& dst : s.endports) {
      if (src.ref == dst.ref || h.sim().topology().node(src.ref.node).is_switch() ||
          h.sim().topology().node(dst.ref.node).is_switch())
        continue;
      const auto r = get_by_lids(s, src.base_lid, dst.base_lid);
      REQUIRE(r.status == 0);
      const uint8_t expected = engine.path_sl(routing::RoutingInput{.graph = graph}, src.base_lid, dst.base_lid);
      CHECK(path_record(r, 0).sl == expected);
      seen.insert(path_record(r, 0).sl);
    }
  }
  CHECK(seen.size() == engine.layers());
}

