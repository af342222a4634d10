// The SA query engine: Get by every key finds the one record, GetTable with
// random masks returns exactly what a naive filter over the whole table
// keeps, and bad requests get the SA's status codes.
#include "sa/query.h"

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "sa/record_tables.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/prng.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::must;
using test::SweepHarness;

namespace {

template <typename R>
std::vector<uint8_t> encoded(const R& r, size_t size) {
  std::vector<uint8_t> buf(size);
  wire::encode(r, buf);
  return buf;
}

sa::SaQueryResult query(const sa::SaSnapshot& s, uint8_t method, uint16_t attr, uint64_t mask,
                        std::span<const uint8_t> tmpl, bool trusted = true) {
  sa::SaQuery q;
  q.method = method;
  q.attribute = attr;
  q.component_mask = mask;
  q.record = tmpl;
  q.trusted = trusted;
  return run_query(s, q);
}

template <typename R>
sa::SaQueryResult get(const sa::SaSnapshot& s, uint16_t attr, uint64_t mask, const R& tmpl, size_t size) {
  auto bytes = encoded(tmpl, size);
  return query(s, wire::method::get, attr, mask, bytes);
}

// The components a row is judged by: all of the mask, except that a CA
// port's SL2VL and VLArb records have no port-number keys (IBA 15.2.5.4 and
// 15.2.5.9 name one table per CA port; OpenSM ignores the port numbers there).
struct RowMask {
  uint64_t ca_ignored = 0;  // component bits a CA's rows are not judged by
  uint64_t operator()(const sa::SaSnapshot& s, std::span<const uint8_t> row, uint64_t mask) const {
    const sa::EndPort* owner = s.by_lid(Lid{static_cast<uint16_t>(wire::get_field(row, wire::Field{0, 16, "LID"}))});
    const bool ca = owner != nullptr && !s.fabric.node(owner->ref.node).is_switch();
    return ca ? mask & ~ca_ignored : mask;
  }
};

// GetTable with random masks and templates drawn from the table itself (so
// matches exist), against a filter over the whole encoded table.
template <typename R, typename Visit>
void require_gettable_filters(const sa::SaSnapshot& s, uint16_t attr, size_t size,
                              std::span<const wire::Component> comps, Visit visit, uint64_t seed,
                              RowMask row_mask = {}) {
  auto all = sa::collect_records<R>(s, visit);
  REQUIRE(!all.empty());
  std::vector<std::vector<uint8_t>> table;
  for (const R& r : all) table.push_back(encoded(r, size));

  // An empty mask returns the whole table, in table order.
  auto whole = query(s, wire::method::get_table, attr, 0, {});
  REQUIRE(whole.status == 0);
  REQUIRE(whole.count == table.size());
  CHECK(whole.attr_offset == wire::sa_attr_offset_words(size));
  for (size_t i = 0; i < table.size(); ++i) {
    auto rec = whole.record(i);
    CHECK(std::equal(rec.begin(), rec.end(), table[i].begin()));
  }

  topogen::Prng prng(seed);
  const uint64_t defined = wire::component_mask_of(comps);
  for (int round = 0; round < 40; ++round) {
    const std::vector<uint8_t>& tmpl = table[prng.next() % table.size()];
    uint64_t mask = prng.next() & defined;
    if (round % 3 == 0) mask &= prng.next();  // fewer components too
    auto r = query(s, wire::method::get_table, attr, mask, tmpl);
    REQUIRE(r.status == 0);
    if (row_mask.ca_ignored == 0) {
      test::require_filtered(r, table, tmpl, mask, comps);
      continue;
    }
    std::vector<size_t> expected;
    for (size_t i = 0; i < table.size(); ++i)
      if (wire::masked_fields_equal(table[i], tmpl, row_mask(s, table[i], mask), comps)) expected.push_back(i);
    INFO("mask " << std::hex << mask);
    REQUIRE(r.count == expected.size());
    for (size_t k = 0; k < expected.size(); ++k)
      CHECK(std::equal(r.record(k).begin(), r.record(k).end(), table[expected[k]].begin()));
  }
}

}  // namespace

TEST_CASE("sa get finds one record by each key", "[sa][query]") {
  SweepHarness h(test::two_port_hca_fabric());
  sa::SaSnapshot s = test::swept_snapshot(h, 1);
  const uint64_t lid_bit = 1;
  const uint64_t port_guid_bit = uint64_t{1} << 8;  // NodeRecord: LID, reserved, then NodeInfo's fields
  const uint64_t node_guid_bit = uint64_t{1} << 7;

  for (const sa::EndPort& e : s.endports) {
    INFO(fmt::format("port {}", e.guid));
    const Node& node = s.fabric.node(e.ref.node);
    // Every LID of the port's LMC range finds its NodeRecord, which carries the base LID.
    for (uint32_t k = 0; k < (1u << e.lmc); ++k) {
      wire::NodeRecord t;
      t.lid = Lid{static_cast<uint16_t>(e.base_lid.value + k)};
      auto r = get(s, wire::sa_attr::node_record, lid_bit, t, wire::sa_record_size::node);
      REQUIRE(r.status == 0);
      REQUIRE(r.count == 1);
      auto rec = wire::decode_node_record(r.record(0));
      REQUIRE(rec.ok());
      CHECK(rec->lid == e.base_lid);
      CHECK(rec->node_info.port_guid == e.guid);
    }
    wire::NodeRecord by_port;
    by_port.node_info.port_guid = e.guid;
    auto r = get(s, wire::sa_attr::node_record, port_guid_bit, by_port, wire::sa_record_size::node);
    REQUIRE(r.count == 1);
    CHECK(wire::decode_node_record(r.record(0))->lid == e.base_lid);

    // By node GUID: a switch has one record, a two-port HCA two.
    wire::NodeRecord by_node;
    by_node.node_info.node_guid = node.node_guid;
    r = get(s, wire::sa_attr::node_record, node_guid_bit, by_node, wire::sa_record_size::node);
    CHECK(r.status == (node.is_switch() ? 0 : wire::sa_status::too_many_records));
    CHECK(r.count == (node.is_switch() ? 1u : 0u));

    // PortInfoRecord by LID and port number.
    wire::PortInfoRecord pt;
    pt.endport_lid = e.base_lid;
    pt.port_num = node.is_switch() ? 0 : e.ref.port;
    r = get(s, wire::sa_attr::port_info_record, 0b11, pt, wire::sa_record_size::port_info);
    REQUIRE(r.count == 1);
    CHECK(wire::decode_port_info_record(r.record(0))->port_info == s.port_info[e.ref.node.value][pt.port_num]);
  }

  SECTION("no match and too many") {
    wire::NodeRecord t;
    t.lid = Lid{0xBFFF};  // owned by nobody
    CHECK(get(s, wire::sa_attr::node_record, lid_bit, t, wire::sa_record_size::node).status ==
          wire::sa_status::no_records);
    CHECK(query(s, wire::method::get, wire::sa_attr::node_record, 0, {}).status ==
          wire::sa_status::too_many_records);
    auto table = query(s, wire::method::get_table, wire::sa_attr::node_record, lid_bit, encoded(t, 108));
    CHECK(table.status == 0);  // GetTable: no records is an answer
    CHECK(table.count == 0);
    CHECK(query(s, wire::method::get_table, wire::sa_attr::multicast_forwarding_table_record, 0, {}).count == 0);
    CHECK(query(s, wire::method::get, wire::sa_attr::multicast_forwarding_table_record, 0, {}).status ==
          wire::sa_status::no_records);
    wire::SmInfoRecord sm;
    sm.lid = s.sm_lid;
    CHECK(get(s, wire::sa_attr::sm_info_record, 1, sm, wire::sa_record_size::sm_info).count == 1);
  }
  SECTION("link records by either end") {
    for (const Link& l : s.fabric.links()) {
      wire::LinkRecord t;
      t.from_lid = s.record_lid(l.a.node, l.a.port);
      t.from_port = l.a.port;
      auto r = get(s, wire::sa_attr::link_record, 0b11, t, wire::sa_record_size::link);
      REQUIRE(r.count == 1);
      auto rec = wire::decode_link_record(r.record(0));
      CHECK(rec->to_port == l.b.port);
      CHECK(rec->to_lid == s.record_lid(l.b.node, l.b.port));
      // ToLID one above the base (LMC 1) still names the same port.
      wire::LinkRecord back;
      back.to_lid = Lid{static_cast<uint16_t>(t.from_lid.value + (s.by_lid(t.from_lid)->lmc ? 1 : 0))};
      back.to_port = l.a.port;
      r = get(s, wire::sa_attr::link_record, 0b1100, back, wire::sa_record_size::link);
      REQUIRE(r.count == 1);
      CHECK(wire::decode_link_record(r.record(0))->from_port == l.b.port);
    }
  }
}

// Every record of a table, asked for by its key components (its LID, and
// any LID of the owner's LMC range, plus port and block numbers), is the
// one answer to a Get.
template <typename R, typename Visit>
void require_get_by_key(const sa::SaSnapshot& s, uint16_t attr, size_t size, uint64_t key_mask, Visit visit) {
  auto all = sa::collect_records<R>(s, visit);
  REQUIRE(!all.empty());
  for (const R& r : all) {
    auto bytes = encoded(r, size);
    const uint16_t base = static_cast<uint16_t>(wire::get_field(bytes, wire::Field{0, 16, "LID"}));
    const sa::EndPort* owner = s.by_lid(Lid{base});
    REQUIRE(owner != nullptr);
    for (uint32_t k = 0; k < (1u << owner->lmc); ++k) {
      wire::set_field(bytes, wire::Field{0, 16, "LID"}, base + k);
      auto got = query(s, wire::method::get, attr, key_mask, bytes);
      INFO("attribute " << attr << " lid " << base + k);
      REQUIRE(got.status == 0);
      REQUIRE(got.count == 1);
      CHECK(std::equal(got.record(0).begin(), got.record(0).end(), encoded(r, size).begin()));
    }
  }
}

TEST_CASE("sa get by key finds every record of every table", "[sa][query]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h, 1);
  namespace a = wire::sa_attr;
  namespace sz = wire::sa_record_size;
  require_get_by_key<wire::NodeRecord>(s, a::node_record, sz::node, 0b1, sa::visit_node_records);
  require_get_by_key<wire::PortInfoRecord>(s, a::port_info_record, sz::port_info, 0b11, sa::visit_port_info_records);
  require_get_by_key<wire::LinkRecord>(s, a::link_record, sz::link, 0b11, sa::visit_link_records);
  require_get_by_key<wire::SwitchInfoRecord>(s, a::switch_info_record, sz::switch_info, 0b1,
                                             sa::visit_switch_info_records);
  require_get_by_key<wire::LinearForwardingTableRecord>(s, a::linear_forwarding_table_record,
                                                        sz::linear_forwarding_table, 0b11, sa::visit_lft_records);
  require_get_by_key<wire::SmInfoRecord>(s, a::sm_info_record, sz::sm_info, 0b1, sa::visit_sm_info_records);
  require_get_by_key<wire::GuidInfoRecord>(s, a::guid_info_record, sz::guid_info, 0b11, sa::visit_guid_info_records);
  require_get_by_key<wire::PKeyTableRecord>(s, a::p_key_table_record, sz::p_key_table, 0b111,
                                            sa::visit_p_key_table_records);
  require_get_by_key<wire::SlToVlTableRecord>(s, a::sl_to_vl_mapping_table_record, sz::sl_to_vl_mapping_table, 0b111,
                                              sa::visit_sl_to_vl_table_records);
  require_get_by_key<wire::VlArbitrationTableRecord>(s, a::vl_arbitration_table_record, sz::vl_arbitration_table,
                                                     0b111, sa::visit_vl_arbitration_table_records);
}

TEST_CASE("sa gettable with random masks returns exactly the matching records", "[sa][query]") {
  SweepHarness h(must(topogen::kary_ntree({.k = 2, .n = 3})));
  sa::SaSnapshot s = test::swept_snapshot(h);
  namespace a = wire::sa_attr;
  namespace sz = wire::sa_record_size;
  require_gettable_filters<wire::NodeRecord>(s, a::node_record, sz::node, wire::node_record_components,
                                             sa::visit_node_records, 1);
  require_gettable_filters<wire::PortInfoRecord>(s, a::port_info_record, sz::port_info,
                                                 wire::port_info_record_components, sa::visit_port_info_records, 2);
  require_gettable_filters<wire::LinkRecord>(s, a::link_record, sz::link, wire::link_record_components,
                                             sa::visit_link_records, 3);
  require_gettable_filters<wire::SwitchInfoRecord>(s, a::switch_info_record, sz::switch_info,
                                                   wire::switch_info_record_components,
                                                   sa::visit_switch_info_records, 4);
  require_gettable_filters<wire::LinearForwardingTableRecord>(s, a::linear_forwarding_table_record,
                                                              sz::linear_forwarding_table,
                                                              wire::lft_record_components, sa::visit_lft_records, 5);
  require_gettable_filters<wire::SmInfoRecord>(s, a::sm_info_record, sz::sm_info, wire::sm_info_record_components,
                                               sa::visit_sm_info_records, 6);
  require_gettable_filters<wire::GuidInfoRecord>(s, a::guid_info_record, sz::guid_info,
                                                 wire::guid_info_record_components, sa::visit_guid_info_records, 7);
  require_gettable_filters<wire::PKeyTableRecord>(s, a::p_key_table_record, sz::p_key_table,
                                                  wire::p_key_table_record_components,
                                                  sa::visit_p_key_table_records, 8);
  require_gettable_filters<wire::SlToVlTableRecord>(s, a::sl_to_vl_mapping_table_record, sz::sl_to_vl_mapping_table,
                                                    wire::sl_to_vl_table_record_components,
                                                    sa::visit_sl_to_vl_table_records, 9, RowMask{0b110});
  require_gettable_filters<wire::VlArbitrationTableRecord>(s, a::vl_arbitration_table_record,
                                                           sz::vl_arbitration_table,
                                                           wire::vl_arbitration_table_record_components,
                                                           sa::visit_vl_arbitration_table_records, 10, RowMask{0b10});
}

TEST_CASE("sa takes a ca port's own tables whatever port number is asked", "[sa][query]") {
  // osmtest -f q asks each port's VLArb blocks and SL2VL table by LID with
  // OutputPortNum (and InputPortNum) 0; a CA port has one of each, its own.
  SweepHarness h(test::two_port_hca_fabric());
  sa::SaSnapshot s = test::swept_snapshot(h);
  size_t cas = 0;
  for (const sa::EndPort& e : s.endports) {
    const bool is_switch = s.fabric.node(e.ref.node).is_switch();
    INFO(fmt::format("port {}", e.guid));
    for (uint8_t asked : {uint8_t{0}, uint8_t{200}}) {
      wire::VlArbitrationTableRecord va;
      va.lid = e.base_lid;
      va.output_port_num = asked;
      va.block_num = 1;
      auto r = get(s, wire::sa_attr::vl_arbitration_table_record, 0b111, va, wire::sa_record_size::vl_arbitration_table);
      wire::SlToVlTableRecord sl;
      sl.lid = e.base_lid;
      sl.input_port_num = asked;
      sl.output_port_num = asked;
      auto t = get(s, wire::sa_attr::sl_to_vl_mapping_table_record, 0b111, sl,
                   wire::sa_record_size::sl_to_vl_mapping_table);
      if (is_switch) {  // a switch's port numbers are keys: port 0 has its own, port 200 none
        CHECK(r.count == (asked == 0 ? 1u : 0u));
        CHECK(t.count == (asked == 0 ? 1u : 0u));
        continue;
      }
      REQUIRE(r.count == 1);
      CHECK(wire::decode_vl_arbitration_table_record(r.record(0))->output_port_num == e.ref.port);
      REQUIRE(t.count == 1);
      auto rec = wire::decode_sl_to_vl_table_record(t.record(0));
      CHECK(rec->input_port_num == 0);
      CHECK(rec->output_port_num == e.ref.port);
    }
    if (!is_switch) ++cas;
  }
  CHECK(cas == 4);
}

TEST_CASE("sa requests the tables cannot answer", "[sa][query]") {
  sa::SaSnapshot s = test::offline_snapshot(must(topogen::kary_ntree({.k = 2, .n = 2})));

  // A ComponentMask bit beyond the record's components.
  CHECK(query(s, wire::method::get_table, wire::sa_attr::link_record, uint64_t{1} << 4, {}).status ==
        wire::sa_status::req_invalid);
  CHECK(query(s, wire::method::get_table, wire::sa_attr::node_record, uint64_t{1} << 15, {}).status ==
        wire::sa_status::req_invalid);
  CHECK(query(s, wire::method::get_table, wire::sa_attr::node_record, (uint64_t{1} << 15) - 1, {}).status !=
        wire::sa_status::req_invalid);

  // P_Key tables only for SM_Key-trusted requesters.
  auto denied = query(s, wire::method::get_table, wire::sa_attr::p_key_table_record, 0, {}, false);
  CHECK(denied.status == wire::sa_status::req_denied);
  CHECK(denied.count == 0);
  CHECK(query(s, wire::method::get_table, wire::sa_attr::p_key_table_record, 0, {}, true).count > 0);

  // Not a table here, or not a table method: the agent's to answer.
  auto path = query(s, wire::method::get, wire::sa_attr::path_record, 0, {});
  CHECK(path.outcome == sa::SaQueryOutcome::unsupported_attribute);
  CHECK(!sa::is_table_attribute(wire::sa_attr::path_record));
  auto set = query(s, wire::method::set, wire::sa_attr::node_record, 0, {});
  CHECK(set.outcome == sa::SaQueryOutcome::unsupported_method);
  CHECK(set.status == wire::mad_status::method_attr_unsupported);
}

TEST_CASE("sa hides M_Key and SM_Key from untrusted requesters", "[sa][query]") {
  sa::SaSnapshot s = test::offline_snapshot(must(topogen::kary_ntree({.k = 2, .n = 2})));
  for (auto& node : s.port_info)
    for (auto& pi : node) pi.m_key = 0xABCD;
  for (bool trusted : {false, true}) {
    auto pir = query(s, wire::method::get_table, wire::sa_attr::port_info_record, 0, {}, trusted);
    REQUIRE(pir.count > 0);
    for (size_t i = 0; i < pir.count; ++i)
      CHECK(wire::decode_port_info_record(pir.record(i))->port_info.m_key == (trusted ? 0xABCDu : 0u));
    auto sm = query(s, wire::method::get_table, wire::sa_attr::sm_info_record, 0, {}, trusted);
    REQUIRE(sm.count == 1);
    CHECK(wire::decode_sm_info_record(sm.record(0))->sm_info.sm_key == (trusted ? s.sm_info.sm_key : 0u));
  }
  // An untrusted requester cannot find a port by its M_Key.
  wire::PortInfoRecord t;
  t.port_info.m_key = 0xABCD;
  auto bytes = encoded(t, wire::sa_record_size::port_info);
  const uint64_t m_key_bit = uint64_t{1} << 3;
  CHECK(query(s, wire::method::get_table, wire::sa_attr::port_info_record, m_key_bit, bytes, false).count == 0);
  CHECK(query(s, wire::method::get_table, wire::sa_attr::port_info_record, m_key_bit, bytes, true).count > 0);
}

TEST_CASE("sa answers 100k NodeRecord gets by lid on a 10k-endpoint fat tree", "[sa][query][scale]") {
  sa::SaSnapshot s = test::offline_snapshot(must(topogen::kary_ntree({.k = 22, .n = 3})));
  REQUIRE(s.fabric.ca_count() >= 10000);
  topogen::Prng prng(42);
  std::vector<uint8_t> tmpl(wire::sa_record_size::node);
  size_t wrong = 0;
  for (int i = 0; i < 100000; ++i) {
    const sa::EndPort& e = s.endports[prng.next() % s.endports.size()];
    wire::set_field(tmpl, wire::node_record_fields::lid, e.base_lid.value);
    sa::SaQuery q{.method = wire::method::get, .attribute = wire::sa_attr::node_record, .component_mask = 1,
                  .record = tmpl};
    auto r = sa::run_query(s, q);
    if (r.count != 1 || wire::get_field(r.record(0), wire::node_info_fields::port_guid.shifted(4)) != e.guid.value)
      ++wrong;
  }
  CHECK(wrong == 0);
  auto all = query(s, wire::method::get_table, wire::sa_attr::port_info_record, 0, {});
  size_t expected = 0;
  for (uint32_t i = 0; i < s.fabric.node_count(); ++i)
    for (uint8_t p = 0; p <= s.fabric.node(NodeIndex{i}).num_ports; ++p) expected += s.has_port_info(NodeIndex{i}, p);
  CHECK(all.count == expected);
}
