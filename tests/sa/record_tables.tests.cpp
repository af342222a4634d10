// Every SA record table of a swept fabric against the fabric itself: counts,
// LIDs, GUIDs, link ends, table contents, order, and a round trip through
// the wire codecs.
#include "sa/record_tables.h"

#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::must;
using test::SweepHarness;

namespace {

// Encodes and decodes `r` with the record's wire codec.
template <typename R, typename Decode>
void require_round_trip(const R& r, size_t size, Decode decode) {
  std::vector<uint8_t> buf(size);
  wire::encode(r, buf);
  auto back = decode(buf);
  REQUIRE(back.ok());
  CHECK(*back == r);
}

size_t read_ports(const sa::SaSnapshot& s, NodeIndex n) {
  size_t k = 0;
  for (uint8_t p = 0; p <= s.fabric.node(n).num_ports; ++p) k += s.has_port_info(n, p);
  return k;
}

void require_tables_match(const sa::SaSnapshot& s) {
  const Fabric& f = s.fabric;
  size_t switches = f.switch_count();
  size_t ca_ports = s.endports.size() - switches;

  SECTION("node records") {
    auto recs = sa::collect_records<wire::NodeRecord>(s, sa::visit_node_records);
    REQUIRE(recs.size() == switches + ca_ports);
    std::set<uint64_t> port_guids;
    for (size_t i = 0; i < recs.size(); ++i) {
      const wire::NodeRecord& r = recs[i];
      const sa::EndPort* e = s.by_port_guid(r.node_info.port_guid);
      REQUIRE(e != nullptr);
      CHECK(r.lid == e->base_lid);
      CHECK(r.node_info.node_guid == f.node(e->ref.node).node_guid);
      CHECK(r.node_info.node_type == f.node(e->ref.node).type);
      CHECK(r.node_info.num_ports == f.node(e->ref.node).num_ports);
      CHECK(r.description() == f.node(e->ref.node).description);
      if (r.node_info.node_type != NodeType::switch_) CHECK(r.node_info.local_port_num == e->ref.port);
      CHECK(port_guids.insert(r.node_info.port_guid.value).second);
      if (i > 0) CHECK(recs[i - 1].node_info.node_guid.value <= r.node_info.node_guid.value);
      require_round_trip(r, wire::sa_record_size::node, wire::decode_node_record);
    }
  }
  SECTION("port info records") {
    auto recs = sa::collect_records<wire::PortInfoRecord>(s, sa::visit_port_info_records);
    size_t expected = 0;
    for (uint32_t i = 0; i < f.node_count(); ++i) expected += read_ports(s, NodeIndex{i});
    REQUIRE(recs.size() == expected);
    for (const auto& r : recs) {
      const sa::EndPort* e = s.by_lid(r.endport_lid);
      REQUIRE(e != nullptr);
      CHECK(e->base_lid == r.endport_lid);
      CHECK(r.port_info == s.port_info[e->ref.node.value][r.port_num]);
      if (!f.node(e->ref.node).is_switch()) CHECK(r.port_num == e->ref.port);
      require_round_trip(r, wire::sa_record_size::port_info, wire::decode_port_info_record);
    }
  }
  SECTION("link records: one per direction of each cable") {
    auto recs = sa::collect_records<wire::LinkRecord>(s, sa::visit_link_records);
    REQUIRE(recs.size() == 2 * f.links().size());
    std::set<std::tuple<uint16_t, uint8_t, uint8_t, uint16_t>> seen;
    for (const auto& r : recs) CHECK(seen.insert({r.from_lid.value, r.from_port, r.to_port, r.to_lid.value}).second);
    for (const Link& l : f.links()) {
      Lid a = s.record_lid(l.a.node, l.a.port), b = s.record_lid(l.b.node, l.b.port);
      CHECK(seen.count({a.value, l.a.port, l.b.port, b.value}) == 1);
      CHECK(seen.count({b.value, l.b.port, l.a.port, a.value}) == 1);
    }
    require_round_trip(recs.front(), wire::sa_record_size::link, wire::decode_link_record);
  }
  SECTION("switch info and forwarding table records") {
    auto sis = sa::collect_records<wire::SwitchInfoRecord>(s, sa::visit_switch_info_records);
    REQUIRE(sis.size() == switches);
    auto lfts = sa::collect_records<wire::LinearForwardingTableRecord>(s, sa::visit_lft_records);
    std::map<uint16_t, std::vector<const wire::LinearForwardingTableRecord*>> by_lid;
    for (const auto& r : lfts) by_lid[r.lid.value].push_back(&r);
    for (const auto& si : sis) {
      const sa::EndPort* e = s.by_lid(si.lid);
      REQUIRE(e != nullptr);
      REQUIRE(f.node(e->ref.node).is_switch());
      const std::vector<uint8_t>& lft = s.lft(e->ref.node);
      CHECK(si.switch_info.linear_fdb_top == lft.size() - 1);
      const auto& blocks = by_lid[si.lid.value];
      REQUIRE(blocks.size() == (lft.size() + 63) / 64);
      for (size_t b = 0; b < blocks.size(); ++b) {
        CHECK(blocks[b]->block_num == b);
        for (size_t k = 0; k < 64; ++k) {
          size_t lid = b * 64 + k;
          CHECK(blocks[b]->lft.ports[k] == (lid < lft.size() ? lft[lid] : 0xFF));
        }
      }
      require_round_trip(si, wire::sa_record_size::switch_info, wire::decode_switch_info_record);
    }
    auto no_tables = [](const sa::SaSnapshot& snap, const sa::RecordScope& scope, const auto& fn) {
      sa::visit_mft_records(snap, nullptr, scope, fn);
    };
    CHECK(sa::collect_records<wire::MulticastForwardingTableRecord>(s, no_tables).empty());
    // One entry, MLID 0xC021 (block 1, entry 1) on the first switch: blocks 0
    // and 1 at every position it has, the entry's ports in each position's bits.
    NodeIndex sw;
    for (uint32_t i = 0; i < s.fabric.node_count() && !sw.valid(); ++i)
      if (s.fabric.node(NodeIndex{i}).is_switch()) sw = NodeIndex{i};
    REQUIRE(sw.valid());
    MulticastTables tables(s.fabric.node_count());
    PortMask ports;
    ports.set(0);
    ports.set(2);
    tables.set(sw, Lid{0xC021}, ports);
    auto with_tables = [&tables](const sa::SaSnapshot& snap, const sa::RecordScope& scope, const auto& fn) {
      sa::visit_mft_records(snap, &tables, scope, fn);
    };
    auto mfts = sa::collect_records<wire::MulticastForwardingTableRecord>(s, with_tables);
    const size_t positions = s.fabric.node(sw).num_ports / 16u + 1;
    REQUIRE(mfts.size() == 2 * positions);
    for (const auto& r : mfts) {
      CHECK(r.lid == s.record_lid(sw, 0));
      const uint16_t want = r.block_num == 1 && r.position == 0 ? 0b101 : 0;
      CHECK(r.mft.port_masks[1] == want);
      require_round_trip(r, wire::sa_record_size::multicast_forwarding_table,
                         wire::decode_multicast_forwarding_table_record);
    }
    // Tables of another fabric are not served.
    MulticastTables other(s.fabric.node_count() + 1);
    other.set(sw, Lid{0xC000}, ports);
    CHECK(sa::collect_records<wire::MulticastForwardingTableRecord>(
              s, [&other](const sa::SaSnapshot& snap, const sa::RecordScope& scope, const auto& fn) {
                sa::visit_mft_records(snap, &other, scope, fn);
              })
              .empty());
  }
  SECTION("sm info, guid info") {
    auto sms = sa::collect_records<wire::SmInfoRecord>(s, sa::visit_sm_info_records);
    REQUIRE(sms.size() == 1);
    CHECK(sms[0].lid == s.sm_lid);
    CHECK(sms[0].sm_info == s.sm_info);
    require_round_trip(sms[0], wire::sa_record_size::sm_info, wire::decode_sm_info_record);
    auto gis = sa::collect_records<wire::GuidInfoRecord>(s, sa::visit_guid_info_records);
    std::set<uint64_t> guids;
    for (const auto& r : gis) {
      const sa::EndPort* e = s.by_lid(r.lid);
      REQUIRE(e != nullptr);
      if (r.block_num == 0) {
        CHECK(r.guid_info.guids[0] == e->guid);
        CHECK(guids.insert(e->guid.value).second);
      }
    }
    CHECK(guids.size() == s.endports.size());
  }
  SECTION("p_key, sl2vl and vl arbitration tables of every port") {
    auto pks = sa::collect_records<wire::PKeyTableRecord>(s, sa::visit_p_key_table_records);
    auto slvl = sa::collect_records<wire::SlToVlTableRecord>(s, sa::visit_sl_to_vl_table_records);
    size_t expected_pk = 0, expected_slvl = 0;
    for (const sa::EndPort& e : s.endports) {
      if (f.node(e.ref.node).is_switch()) {
        size_t ports = read_ports(s, e.ref.node);
        expected_slvl += ports * ports;
        for (uint8_t p = 0; p <= f.node(e.ref.node).num_ports; ++p)
          expected_pk += (s.p_keys[e.ref.node.value][p].size() + 31) / 32;
      } else {
        expected_slvl += 1;
        expected_pk += (s.p_keys[e.ref.node.value][e.ref.port].size() + 31) / 32;
      }
    }
    CHECK(pks.size() == expected_pk);
    CHECK(slvl.size() == expected_slvl);
    for (const auto& r : pks)
      if (r.block_num == 0) CHECK(r.p_key_table.p_keys[0] == 0xFFFF);
    for (const auto& r : slvl) CHECK(r.sl_to_vl == s.sl_to_vl);
    // Ascending port GUID, as OpenSM's port table.
    uint64_t last = 0;
    for (const auto& r : pks) {
      uint64_t guid = s.by_lid(r.lid)->guid.value;
      CHECK(guid >= last);
      last = guid;
    }
    auto arb = sa::collect_records<wire::VlArbitrationTableRecord>(s, sa::visit_vl_arbitration_table_records);
    REQUIRE(!arb.empty());
    for (const auto& r : arb) {
      REQUIRE(r.block_num >= 1);
      REQUIRE(r.block_num <= 4);
      if (r.block_num == 1) CHECK(r.vl_arbitration == s.vl_arbitration_low);
      if (r.block_num == 3) CHECK(r.vl_arbitration == s.vl_arbitration_high);
    }
    require_round_trip(pks.front(), wire::sa_record_size::p_key_table, wire::decode_p_key_table_record);
    require_round_trip(slvl.front(), wire::sa_record_size::sl_to_vl_mapping_table,
                       wire::decode_sl_to_vl_table_record);
    require_round_trip(arb.front(), wire::sa_record_size::vl_arbitration_table,
                       wire::decode_vl_arbitration_table_record);
  }
}

}  // namespace

TEST_CASE("sa record tables of a swept fat tree match the fabric", "[sa][tables]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h, 1);
  require_tables_match(s);
}

TEST_CASE("sa record tables of ibsim's two-port hca example match the fabric", "[sa][tables]") {
  SweepHarness h(test::two_port_hca_fabric());
  sa::SaSnapshot s = test::swept_snapshot(h);
  require_tables_match(s);
  // Each HCA has two NodeRecords, one per port, with the port's own LID.
  auto recs = sa::collect_records<wire::NodeRecord>(s, sa::visit_node_records);
  std::map<uint64_t, std::set<uint16_t>> lids_of_node;
  for (const auto& r : recs) lids_of_node[r.node_info.node_guid.value].insert(r.lid.value);
  for (const auto& [guid, lids] : lids_of_node) {
    auto n = s.by_node_guid(Guid{guid});
    REQUIRE(n);
    CHECK(lids.size() == (s.fabric.node(*n).is_switch() ? 1u : 2u));
  }
}

TEST_CASE("a record scope narrows a table to one node or port", "[sa][tables]") {
  SweepHarness h(test::two_port_hca_fabric());
  sa::SaSnapshot s = test::swept_snapshot(h);
  const Fabric& topo = h.sim().topology();
  NodeIndex hca = *s.by_node_guid(topo.node(*topo.find_by_name("Hca1")).node_guid);
  auto both = sa::collect_records<wire::PortInfoRecord>(s, sa::visit_port_info_records, {hca, std::nullopt});
  CHECK(both.size() == 2);
  auto one = sa::collect_records<wire::PortInfoRecord>(s, sa::visit_port_info_records, {hca, uint8_t{2}});
  REQUIRE(one.size() == 1);
  CHECK(one[0].port_num == 2);
  NodeIndex sw = *s.by_node_guid(topo.node(*topo.find_by_name("Switch1")).node_guid);
  auto links = sa::collect_records<wire::LinkRecord>(s, sa::visit_link_records, {sw, std::nullopt});
  CHECK(links.size() == 4);
}
