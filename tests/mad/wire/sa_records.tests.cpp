// SA records (IBA 15.2.5): their component tables against the spec's
// ComponentMask numbering, masked matching on encoded bytes, the byte layout
// saquery decodes (infiniband-diags reads records through packed structs
// whose offsets are pinned here), and MultiPathRecord's GID list. The plain
// codec checks (round trip, reserved bits, short buffers) run for these
// structs with the SMP attributes in attributes.tests.cpp; libibmad's SA
// fields are checked in libibmad_crosscheck.tests.cpp.
#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "wire_codecs.h"
#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

namespace {

template <typename X>
struct Rec;

#define IBSM_SA_REC(X, TABLE, BYTES)                         \
  template <>                                                \
  struct Rec<X> {                                            \
    static constexpr const auto& components = TABLE;         \
    static constexpr size_t bytes = BYTES;                   \
  }

IBSM_SA_REC(NodeRecord, node_record_components, sa_record_size::node);
IBSM_SA_REC(PortInfoRecord, port_info_record_components, sa_record_size::port_info);
IBSM_SA_REC(SwitchInfoRecord, switch_info_record_components, sa_record_size::switch_info);
IBSM_SA_REC(SmInfoRecord, sm_info_record_components, sa_record_size::sm_info);
IBSM_SA_REC(LinkRecord, link_record_components, sa_record_size::link);
IBSM_SA_REC(LinearForwardingTableRecord, lft_record_components, sa_record_size::linear_forwarding_table);
IBSM_SA_REC(MulticastForwardingTableRecord, mft_record_components, sa_record_size::multicast_forwarding_table);
IBSM_SA_REC(GuidInfoRecord, guid_info_record_components, sa_record_size::guid_info);
IBSM_SA_REC(PKeyTableRecord, p_key_table_record_components, sa_record_size::p_key_table);
IBSM_SA_REC(SlToVlTableRecord, sl_to_vl_table_record_components, sa_record_size::sl_to_vl_mapping_table);
IBSM_SA_REC(VlArbitrationTableRecord, vl_arbitration_table_record_components,
            sa_record_size::vl_arbitration_table);
IBSM_SA_REC(PathRecord, path_record_components, sa_record_size::path);
IBSM_SA_REC(McMemberRecord, mc_member_record_components, sa_record_size::mc_member);
IBSM_SA_REC(ServiceRecord, service_record_components, sa_record_size::service);
IBSM_SA_REC(InformInfoRecord, inform_info_record_components, sa_record_size::inform_info);
IBSM_SA_REC(MultiPathRecord, multi_path_record_components, sa_record_size::multi_path_fixed);

#undef IBSM_SA_REC

#define SA_RECORDS                                                                                    \
  NodeRecord, PortInfoRecord, SwitchInfoRecord, SmInfoRecord, LinkRecord, LinearForwardingTableRecord, \
      MulticastForwardingTableRecord, GuidInfoRecord, PKeyTableRecord, SlToVlTableRecord,              \
      VlArbitrationTableRecord, PathRecord, McMemberRecord, ServiceRecord, InformInfoRecord, MultiPathRecord

// An encoded random record (for MultiPathRecord: its fixed part).
template <typename X>
std::vector<uint8_t> random_encoded(std::mt19937_64& rng) {
  std::vector<uint8_t> buf(Rec<X>::bytes);
  X x = random_struct<X>(rng);
  if constexpr (std::is_same_v<X, MultiPathRecord>) x.sgid_count = x.dgid_count = 0;
  encode(x, buf);
  return buf;
}

// `b` with the bits of `f` changed (a random nonzero change inside the field).
void change_bits(std::mt19937_64& rng, std::vector<uint8_t>& b, const Field& f) {
  if (f.bit_width <= 64) {
    uint64_t delta = 0;
    while (delta == 0) delta = random_bits(rng, f.bit_width);
    set_field(b, f, get_field(b, f) ^ delta);
  } else {
    const Field bit{static_cast<uint16_t>(f.bit_offset + rng() % f.bit_width), 1, "bit"};
    set_field(b, bit, get_field(b, bit) ^ 1);
  }
}

uint64_t be(const std::vector<uint8_t>& b, size_t offset, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | b[offset + i];
  return v;
}

const Component& component(std::span<const Component> table, size_t bit) {
  REQUIRE(bit < table.size());
  return table[bit];
}

}  // namespace

TEMPLATE_TEST_CASE("component tables tile the record in mask bit order", "[wire][sa][components]", SA_RECORDS) {
  const auto& table = Rec<TestType>::components;
  REQUIRE(table.size() > 0);
  REQUIRE(table.size() <= 64);
  size_t next = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    const Component& c = table[i];
    INFO("component " << i << " " << c.field.name << " @" << c.field.bit_offset);
    CHECK(c.bit == i);
    CHECK(c.field.bit_width > 0);
    CHECK(c.field.bit_offset == next);
    next = c.field.end_bit();
  }
  CHECK(next == Rec<TestType>::bytes * 8);
  CHECK(component_mask_of(table) == (table.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << table.size()) - 1));
}

TEMPLATE_TEST_CASE("every field is one component, inside one, or tiled by some", "[wire][sa][components]",
                   SA_RECORDS) {
  const auto& table = Rec<TestType>::components;
  for (const Field& f : field_table<TestType>()) {
    INFO(f.name << " @" << f.bit_offset << "/" << f.bit_width);
    const auto first = std::find_if(table.begin(), table.end(),
                                    [&](const Component& c) { return c.field.end_bit() > f.bit_offset; });
    REQUIRE(first != table.end());
    if (first->field.bit_offset <= f.bit_offset && first->field.end_bit() >= f.end_bit()) {
      // One component holds the field: the field itself, or a table or
      // reserved row of the spec that swallows it.
      const bool same = first->field.bit_offset == f.bit_offset && first->field.bit_width == f.bit_width;
      CHECK((same ? first->field.name == f.name : true));
      continue;
    }
    // Else the spec splits the field: components start at its start and end at its end.
    CHECK(first->field.bit_offset == f.bit_offset);
    auto last = first;
    while (last != table.end() && last->field.end_bit() < f.end_bit()) ++last;
    REQUIRE(last != table.end());
    CHECK(last->field.end_bit() == f.end_bit());
  }
}

// The numbering the spec gives (the same bits rdma-core's and OpenSM's
// IB_*_COMPMASK_* constants use): the count, and spot checks across each table.
TEST_CASE("component bits as IBA numbers them", "[wire][sa][components]") {
  auto check = [](std::span<const Component> t, size_t count,
                  std::initializer_list<std::pair<size_t, std::string_view>> named) {
    CHECK(t.size() == count);
    for (auto [bit, name] : named) {
      INFO("bit " << bit);
      CHECK(component(t, bit).field.name == name);
    }
  };
  check(node_record_components, 15,
        {{0, "LID"}, {1, "Reserved"}, {2, "BaseVersion"}, {6, "SystemImageGUID"}, {7, "NodeGUID"},
         {12, "LocalPortNum"}, {13, "VendorID"}, {14, "NodeString"}});
  check(port_info_record_components, 58,
        {{0, "EndportLID"}, {1, "PortNum"}, {2, "Options"}, {3, "M_Key"}, {5, "LID"}, {7, "CapabilityMask"},
         {15, "PortState"}, {18, "M_KeyProtectBits"}, {19, "Reserved"}, {20, "LMC"}, {31, "MTUCap"},
         {42, "GUIDCap"}, {43, "ClientReregister"}, {44, "MulticastPKeyTrapSuppressionEnabled"},
         {45, "SubnetTimeOut"}, {46, "Reserved"}, {47, "RespTimeValue"}, {50, "MaxCreditHint"},
         {51, "Reserved"}, {52, "LinkRoundTripLatency"}, {53, "CapabilityMask2"}, {54, "LinkSpeedExtActive"},
         {55, "LinkSpeedExtSupported"}, {56, "Reserved"}, {57, "LinkSpeedExtEnabled"}});
  check(switch_info_record_components, 21,
        {{0, "LID"}, {1, "Reserved"}, {2, "LinearFDBCap"}, {9, "LifeTimeValue"}, {18, "EnhancedPort0"},
         {19, "Reserved"}, {20, "MulticastFDBTop"}});
  check(sm_info_record_components, 7,
        {{0, "LID"}, {1, "Reserved"}, {2, "GUID"}, {3, "SM_Key"}, {4, "ActCount"}, {5, "Priority"},
         {6, "SMState"}});
  check(link_record_components, 4, {{0, "FromLID"}, {1, "FromPort"}, {2, "ToPort"}, {3, "ToLID"}});
  check(lft_record_components, 4, {{0, "LID"}, {1, "BlockNum"}, {2, "Reserved"}, {3, "LinearForwardingTable"}});
  check(mft_record_components, 6,
        {{0, "LID"}, {1, "Position"}, {2, "Reserved"}, {3, "BlockNum"}, {4, "Reserved"},
         {5, "MulticastForwardingTable"}});
  check(guid_info_record_components, 12,
        {{0, "LID"}, {1, "BlockNum"}, {2, "Reserved"}, {3, "Reserved"}, {4, "GUID"}, {11, "GUID"}});
  check(p_key_table_record_components, 5,
        {{0, "LID"}, {1, "BlockNum"}, {2, "PortNum"}, {3, "Reserved"}, {4, "P_KeyTable"}});
  check(sl_to_vl_table_record_components, 5,
        {{0, "LID"}, {1, "InputPortNum"}, {2, "OutputPortNum"}, {3, "Reserved"}, {4, "SLtoVLMappingTable"}});
  check(vl_arbitration_table_record_components, 5,
        {{0, "LID"}, {1, "OutputPortNum"}, {2, "BlockNum"}, {3, "Reserved"}, {4, "VLArbitrationTable"}});
  check(path_record_components, 24,
        {{0, "ServiceID8MSB"}, {1, "ServiceID56LSB"}, {2, "DGID"}, {3, "SGID"}, {4, "DLID"}, {5, "SLID"},
         {6, "RawTraffic"}, {7, "Reserved"}, {8, "FlowLabel"}, {9, "HopLimit"}, {10, "TClass"},
         {11, "Reversible"}, {12, "NumbPath"}, {13, "P_Key"}, {14, "QoSClass"}, {15, "SL"}, {16, "MTUSelector"},
         {17, "MTU"}, {18, "RateSelector"}, {19, "Rate"}, {20, "PacketLifeTimeSelector"},
         {21, "PacketLifeTime"}, {22, "Preference"}, {23, "Reserved"}});
  check(mc_member_record_components, 19,
        {{0, "MGID"}, {1, "PortGID"}, {2, "Q_Key"}, {3, "MLID"}, {4, "MTUSelector"}, {7, "P_Key"},
         {12, "SL"}, {13, "FlowLabel"}, {14, "HopLimit"}, {15, "Scope"}, {16, "JoinState"}, {17, "ProxyJoin"},
         {18, "Reserved"}});
  check(service_record_components, 37,
        {{0, "ServiceID"}, {1, "ServiceGID"}, {2, "ServiceP_Key"}, {3, "Reserved"}, {4, "ServiceLease"},
         {5, "ServiceKey"}, {6, "ServiceName"}, {7, "ServiceData8"}, {22, "ServiceData8"}, {23, "ServiceData16"},
         {30, "ServiceData16"}, {31, "ServiceData32"}, {34, "ServiceData32"}, {35, "ServiceData64"},
         {36, "ServiceData64"}});
  check(inform_info_record_components, 16,
        {{0, "SubscriberGID"}, {1, "Enum"}, {2, "Reserved"}, {3, "GID"}, {4, "LIDRangeBegin"},
         {5, "LIDRangeEnd"}, {6, "Reserved"}, {7, "IsGeneric"}, {8, "Subscribe"}, {9, "Type"},
         {10, "TrapNumber"}, {11, "QPN"}, {12, "Reserved"}, {13, "RespTimeValue"}, {14, "Reserved"},
         {15, "ProducerType"}});
  check(multi_path_record_components, 22,
        {{0, "RawTraffic"}, {1, "Reserved"}, {2, "FlowLabel"}, {6, "NumbPath"}, {9, "SL"}, {16, "ServiceID8MSB"},
         {17, "IndependenceSelector"}, {18, "Reserved"}, {19, "SGIDCount"}, {20, "DGIDCount"},
         {21, "ServiceID56LSB"}});
  // Where the wide rows sit.
  CHECK(component(port_info_record_components, 51).field == Field{480, 8, "Reserved"});
  CHECK(component(guid_info_record_components, 4).field.bit_offset == 64);
  CHECK(component(service_record_components, 35).field.bit_offset == 1280);
}

TEMPLATE_TEST_CASE("masked matching: components outside the mask never matter", "[wire][sa][match]", SA_RECORDS) {
  const auto& table = Rec<TestType>::components;
  std::mt19937_64 rng(0x5A);
  for (int round = 0; round < 200; ++round) {
    const auto a = random_encoded<TestType>(rng);
    const uint64_t mask = rng() & component_mask_of(table);
    // Change every component the mask leaves out.
    auto b = a;
    for (const Component& c : table)
      if ((mask >> c.bit & 1) == 0) change_bits(rng, b, c.field);
    REQUIRE(masked_fields_equal(a, b, mask, table));
    REQUIRE(masked_fields_equal(a, b, 0, table));
    REQUIRE(first_masked_difference(a, b, mask, table) == nullptr);
    // Mask bits past the table are no components.
    if (table.size() < 64) REQUIRE(masked_fields_equal(a, b, mask | (~uint64_t{0} << table.size()), table));
    // With every bit set, the changes are seen (unless the mask already had them all).
    if (mask != component_mask_of(table)) REQUIRE_FALSE(masked_fields_equal(a, b, component_mask_of(table), table));
  }
}

TEMPLATE_TEST_CASE("masked matching: a change in any masked component is seen", "[wire][sa][match]", SA_RECORDS) {
  const auto& table = Rec<TestType>::components;
  std::mt19937_64 rng(0xA5);
  for (int round = 0; round < 20; ++round) {
    const auto a = random_encoded<TestType>(rng);
    for (const Component& c : table) {
      INFO("component " << int{c.bit} << " " << c.field.name);
      auto b = a;
      change_bits(rng, b, c.field);
      const uint64_t bit = uint64_t{1} << c.bit;
      const uint64_t others = rng() & component_mask_of(table) & ~bit;
      REQUIRE_FALSE(masked_fields_equal(a, b, bit, table));
      REQUIRE_FALSE(masked_fields_equal(a, b, others | bit, table));
      REQUIRE(first_masked_difference(a, b, others | bit, table) == &c);
      REQUIRE(masked_fields_equal(a, b, others, table));
      REQUIRE(masked_fields_equal(b, b, others | bit, table));
    }
  }
}

TEST_CASE("masked matching on records the agent will compare", "[wire][sa][match]") {
  // A NodeRecord query for one NodeGUID (component 7) matches the node's
  // record whatever its LID and description, and no other node's.
  NodeRecord node;
  node.lid = Lid{12};
  node.node_info.node_type = NodeType::ca;
  node.node_info.node_guid = Guid{0x0002C90300001234};
  node.node_info.port_guid = Guid{0x0002C90300001235};
  node.set_description("h1 HCA-1");
  NodeRecord query;
  query.node_info.node_guid = node.node_info.node_guid;
  std::vector<uint8_t> a(sa_record_size::node), q(sa_record_size::node);
  encode(node, a);
  encode(query, q);
  const uint64_t by_guid = uint64_t{1} << 7;
  CHECK(component(node_record_components, 7).field == node_info_fields::node_guid.shifted(4));
  CHECK(masked_fields_equal(a, q, by_guid, node_record_components));
  CHECK_FALSE(masked_fields_equal(a, q, by_guid | 1, node_record_components));  // and LID 0: no
  query.node_info.node_guid = Guid{0x0002C90300001236};
  encode(query, q);
  CHECK_FALSE(masked_fields_equal(a, q, by_guid, node_record_components));

  // A PathRecord query by DGID and SGID (bits 2, 3) ignores every path property.
  PathRecord path;
  path.dgid = Gid::from_parts(0xFE80000000000000, 1);
  path.sgid = Gid::from_parts(0xFE80000000000000, 2);
  path.dlid = Lid{1};
  path.slid = Lid{2};
  path.mtu = 4;
  path.rate = 16;
  path.sl = 3;
  PathRecord pq;
  pq.dgid = path.dgid;
  pq.sgid = path.sgid;
  pq.numb_path = 1;
  std::vector<uint8_t> p(sa_record_size::path), pqb(sa_record_size::path);
  encode(path, p);
  encode(pq, pqb);
  CHECK(masked_fields_equal(p, pqb, 0b1100, path_record_components));
  CHECK_FALSE(masked_fields_equal(p, pqb, 0b1100 | uint64_t{1} << 15, path_record_components));  // SL 3 vs 0
  // ServiceID by its two halves.
  path.service_id = 0x1100000000000022;
  pq.service_id = 0x1100000000000033;
  encode(path, p);
  encode(pq, pqb);
  CHECK(masked_fields_equal(p, pqb, 0b01, path_record_components));
  CHECK_FALSE(masked_fields_equal(p, pqb, 0b10, path_record_components));

  // A PortInfoRecord query by CapabilityMask (bit 7) and LID (bit 5).
  PortInfoRecord pir;
  pir.endport_lid = Lid{7};
  pir.port_num = 1;
  pir.port_info.lid = Lid{7};
  pir.port_info.capability_mask = port_cap::is_sm;
  pir.port_info.link_speed_ext_active2 = 1;  // an XDR bit: inside reserved component 51
  PortInfoRecord piq = pir;
  piq.port_info.link_speed_ext_active2 = 0;
  piq.endport_lid = Lid{9};
  std::vector<uint8_t> r(sa_record_size::port_info), rq(sa_record_size::port_info);
  encode(pir, r);
  encode(piq, rq);
  CHECK(masked_fields_equal(r, rq, (uint64_t{1} << 7) | (uint64_t{1} << 5), port_info_record_components));
  CHECK_FALSE(masked_fields_equal(r, rq, uint64_t{1} << 0, port_info_record_components));
  CHECK(first_masked_difference(r, rq, ~uint64_t{0}, port_info_record_components) ==
        &port_info_record_components[0]);
  CHECK_FALSE(masked_fields_equal(r, rq, uint64_t{1} << 51, port_info_record_components));
}

// Byte offsets as infiniband-diags' saquery reads the records (its packed
// record structs), for the fields libibmad has no definitions of.
TEST_CASE("records sit where saquery reads them", "[wire][sa][layout]") {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 50; ++round) {
    {
      const auto x = random_struct<NodeRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::node);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(be(b, 2, 2) == 0);
      CHECK(be(b, 4 + 12, 8) == x.node_info.node_guid.value);
      CHECK(be(b, 4 + 36, 4) == ((uint64_t{x.node_info.local_port_num} << 24) | x.node_info.vendor_id));
      CHECK(std::equal(x.node_description.begin(), x.node_description.end(), b.begin() + 44));
      CHECK(sa_attr_offset_words(sa_record_size::node) * 8 == 112);  // saquery's stride, with its pad
    }
    {
      const auto x = random_struct<PortInfoRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::port_info);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.endport_lid.value);
      CHECK(be(b, 2, 1) == x.port_num);
      CHECK(be(b, 3, 1) == x.options);
      CHECK(be(b, 4 + 16, 2) == x.port_info.lid.value);
      CHECK(be(b, 4 + 20, 4) == x.port_info.capability_mask);
      CHECK(sa_attr_offset_words(sa_record_size::port_info) * 8 == 72);
    }
    {
      const auto x = random_struct<LinkRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::link);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.from_lid.value);
      CHECK(b[2] == x.from_port);
      CHECK(b[3] == x.to_port);
      CHECK(be(b, 4, 2) == x.to_lid.value);
    }
    {
      const auto x = random_struct<SmInfoRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::sm_info);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(be(b, 4, 8) == x.sm_info.guid.value);
      CHECK(be(b, 12, 8) == x.sm_info.sm_key);
      CHECK(be(b, 20, 4) == x.sm_info.act_count);
      CHECK(b[24] == ((x.sm_info.priority << 4) | x.sm_info.sm_state));
      CHECK(sa_attr_offset_words(sa_record_size::sm_info) * 8 == 32);
    }
    {
      const auto x = random_struct<SwitchInfoRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::switch_info);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(be(b, 4, 2) == x.switch_info.linear_fdb_cap);
      CHECK(be(b, 4 + 18, 2) == x.switch_info.multicast_fdb_top);
    }
    {
      const auto x = random_struct<LinearForwardingTableRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::linear_forwarding_table);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(be(b, 2, 2) == x.block_num);
      CHECK(std::equal(x.lft.ports.begin(), x.lft.ports.end(), b.begin() + 8));
    }
    {
      const auto x = random_struct<MulticastForwardingTableRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::multicast_forwarding_table);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(be(b, 2, 2) == ((uint64_t{x.position} << 12) | x.block_num));
      for (size_t i = 0; i < 32; ++i) CHECK(be(b, 8 + 2 * i, 2) == x.mft.port_masks[i]);
    }
    {
      const auto x = random_struct<GuidInfoRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::guid_info);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(b[2] == x.block_num);
      for (size_t i = 0; i < 8; ++i) CHECK(be(b, 8 + 8 * i, 8) == x.guid_info.guids[i].value);
    }
    {
      const auto x = random_struct<PKeyTableRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::p_key_table);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(be(b, 2, 2) == x.block_num);
      CHECK(b[4] == x.port_num);
      for (size_t i = 0; i < 32; ++i) CHECK(be(b, 8 + 2 * i, 2) == x.p_key_table.p_keys[i]);
    }
    {
      const auto x = random_struct<SlToVlTableRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::sl_to_vl_mapping_table);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(b[2] == x.input_port_num);
      CHECK(b[3] == x.output_port_num);
      for (size_t sl = 0; sl < 16; ++sl) CHECK(((b[8 + sl / 2] >> (sl % 2 ? 0 : 4)) & 0xF) == x.sl_to_vl.vl_of_sl[sl]);
    }
    {
      const auto x = random_struct<VlArbitrationTableRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::vl_arbitration_table);
      encode(x, b);
      CHECK(be(b, 0, 2) == x.lid.value);
      CHECK(b[2] == x.output_port_num);
      CHECK(b[3] == x.block_num);
      for (size_t i = 0; i < 32; ++i) {
        CHECK(b[8 + 2 * i] == x.vl_arbitration.entries[i].vl);
        CHECK(b[9 + 2 * i] == x.vl_arbitration.entries[i].weight);
      }
    }
    {
      const auto x = random_struct<PathRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::path);
      encode(x, b);
      CHECK(be(b, 0, 8) == x.service_id);
      CHECK(std::equal(x.dgid.raw.begin(), x.dgid.raw.end(), b.begin() + 8));
      CHECK(std::equal(x.sgid.raw.begin(), x.sgid.raw.end(), b.begin() + 24));
      CHECK(be(b, 40, 2) == x.dlid.value);
      CHECK(be(b, 42, 2) == x.slid.value);
      CHECK(be(b, 44, 4) == ((uint64_t{x.raw_traffic} << 31) | (uint64_t{x.flow_label} << 8) | x.hop_limit));
      CHECK(b[48] == x.tclass);
      CHECK(b[49] == ((x.reversible << 7) | x.numb_path));
      CHECK(be(b, 50, 2) == x.p_key);
      CHECK(be(b, 52, 2) == ((uint64_t{x.qos_class} << 4) | x.sl));
      CHECK(b[54] == ((x.mtu_selector << 6) | x.mtu));
      CHECK(b[55] == ((x.rate_selector << 6) | x.rate));
      CHECK(b[56] == ((x.packet_life_time_selector << 6) | x.packet_life_time));
      CHECK(b[57] == x.preference);
      CHECK(be(b, 58, 6) == 0);
    }
    {
      const auto x = random_struct<ServiceRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::service);
      encode(x, b);
      CHECK(be(b, 0, 8) == x.service_id);
      CHECK(std::equal(x.service_gid.raw.begin(), x.service_gid.raw.end(), b.begin() + 8));
      CHECK(be(b, 24, 2) == x.service_p_key);
      CHECK(be(b, 26, 2) == 0);
      CHECK(be(b, 28, 4) == x.service_lease);
      CHECK(std::equal(x.service_key.begin(), x.service_key.end(), b.begin() + 32));
      CHECK(std::equal(x.service_name.begin(), x.service_name.end(), b.begin() + 48));
      for (size_t i = 0; i < 16; ++i) CHECK(b[112 + i] == x.data8[i]);
      for (size_t i = 0; i < 8; ++i) CHECK(be(b, 128 + 2 * i, 2) == x.data16[i]);
      for (size_t i = 0; i < 4; ++i) CHECK(be(b, 144 + 4 * i, 4) == x.data32[i]);
      for (size_t i = 0; i < 2; ++i) CHECK(be(b, 160 + 8 * i, 8) == x.data64[i]);
    }
    {
      const auto x = random_struct<McMemberRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::mc_member);
      encode(x, b);
      CHECK(be(b, 32, 4) == x.q_key);
      CHECK(be(b, 36, 2) == x.mlid.value);
      CHECK(b[38] == ((x.mtu_selector << 6) | x.mtu));
      CHECK(b[39] == x.tclass);
      CHECK(be(b, 40, 2) == x.p_key);
      CHECK(b[42] == ((x.rate_selector << 6) | x.rate));
      CHECK(b[43] == ((x.packet_life_time_selector << 6) | x.packet_life_time));
      CHECK(be(b, 44, 4) == ((uint64_t{x.sl} << 28) | (uint64_t{x.flow_label} << 8) | x.hop_limit));
      CHECK(b[48] == ((x.scope << 4) | x.join_state));
      CHECK(b[49] == (x.proxy_join ? 0x80 : 0));  // IBA's bit 392 (and libibmad's), the byte's MSB
      CHECK(sa_attr_offset_words(sa_record_size::mc_member) * 8 == 56);
    }
    {
      const auto x = random_struct<InformInfoRecord>(rng);
      std::vector<uint8_t> b(sa_record_size::inform_info);
      encode(x, b);
      const InformInfo& ii = x.inform_info;
      CHECK(std::equal(x.subscriber_gid.raw.begin(), x.subscriber_gid.raw.end(), b.begin()));
      CHECK(be(b, 16, 2) == x.enum_);
      CHECK(be(b, 18, 6) == 0);
      CHECK(std::equal(ii.gid.raw.begin(), ii.gid.raw.end(), b.begin() + 24));
      CHECK(be(b, 24 + 16, 2) == ii.lid_range_begin.value);
      CHECK(be(b, 24 + 18, 2) == ii.lid_range_end.value);
      CHECK(be(b, 24 + 20, 2) == 0);
      CHECK(b[24 + 22] == ii.is_generic);
      CHECK(b[24 + 23] == ii.subscribe);
      CHECK(be(b, 24 + 24, 2) == ii.type);
      CHECK(be(b, 24 + 26, 2) == ii.trap_number);
      CHECK(be(b, 24 + 28, 4) == ((uint64_t{ii.qpn} << 8) | ii.resp_time_value));
      CHECK(b[24 + 32] == 0);
      CHECK(be(b, 24 + 33, 3) == ii.producer_type);
      CHECK(sa_attr_offset_words(sa_record_size::inform_info) * 8 == 64);
    }
  }
}

TEST_CASE("informinfo names both union forms", "[wire][sa][informinfo]") {
  InformInfo generic;
  generic.trap_number = trap_number::link_state_change;
  generic.producer_type = producer_type::switch_;
  InformInfo vendor;
  vendor.is_generic = 0;
  vendor.set_device_id(0x1003);
  vendor.set_vendor_id(0x1002C9);
  CHECK(generic.generic());
  CHECK_FALSE(vendor.generic());
  CHECK(vendor.device_id() == 0x1003);
  CHECK(vendor.vendor_id() == 0x1002C9);
  std::vector<uint8_t> g(inform_info_size), v(inform_info_size);
  encode(generic, g);
  encode(vendor, v);
  CHECK(get_field(g, inform_info_fields::trap_number) == 128);
  CHECK(get_field(g, inform_info_fields::producer_type) == 2);
  CHECK(get_field(v, inform_info_fields::device_id) == 0x1003);
  CHECK(get_field(v, inform_info_fields::vendor_id) == 0x1002C9);
  CHECK(inform_info_fields::device_id.bit_offset == inform_info_fields::trap_number.bit_offset);
  CHECK(inform_info_fields::vendor_id.bit_offset == inform_info_fields::producer_type.bit_offset);
  CHECK(decode_inform_info(v)->device_id() == 0x1003);
}

TEST_CASE("record text fields", "[wire][sa][text]") {
  NodeRecord n;
  n.set_description("sw1 leaf");
  CHECK(n.description() == "sw1 leaf");
  CHECK(n.node_description[8] == 0);
  n.set_description(std::string(80, 'x'));  // cut to 64 bytes
  CHECK(n.description() == std::string(64, 'x'));
  ServiceRecord s;
  s.set_name("DAPL");
  std::vector<uint8_t> b(sa_record_size::service);
  encode(s, b);
  CHECK(decode_service_record(b)->name() == "DAPL");
  CHECK(b[48] == 'D');
  CHECK(b[52] == 0);
}

TEST_CASE("multipathrecord carries its gids by count", "[wire][sa][multipath]") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    auto x = random_struct<MultiPathRecord>(rng);
    x.sgid_count = static_cast<uint8_t>(rng() % (multi_path_max_gids + 1));
    x.dgid_count = static_cast<uint8_t>(rng() % (multi_path_max_gids + 1 - x.sgid_count));
    for (size_t i = 0; i < x.gid_count(); ++i) fill_random(rng, multi_path_record_fields::gid(i), x.gids[i]);
    auto buf = random_bytes(rng, sa_data_size);
    const auto tail = std::vector<uint8_t>(buf.begin() + static_cast<std::ptrdiff_t>(x.wire_size()), buf.end());
    encode(x, buf);
    // Nothing past the GIDs is written.
    REQUIRE(std::equal(tail.begin(), tail.end(), buf.begin() + static_cast<std::ptrdiff_t>(x.wire_size())));
    auto back = decode_multi_path_record(buf);
    REQUIRE(back.ok());
    REQUIRE(*back == x);
    REQUIRE(back->service_id() == ((uint64_t{x.service_id_msb} << 56) | x.service_id_lsb));
    REQUIRE(back->sgids().size() == x.sgid_count);
    REQUIRE(back->dgids().size() == x.dgid_count);
    for (size_t i = 0; i < x.gid_count(); ++i)
      REQUIRE(std::equal(x.gids[i].raw.begin(), x.gids[i].raw.end(), buf.begin() + 24 + 16 * static_cast<std::ptrdiff_t>(i)));
    // The exact size decodes; a byte less is short.
    REQUIRE(decode_multi_path_record(std::span(buf).first(x.wire_size())).ok());
    auto short_one = decode_multi_path_record(std::span(buf).first(x.wire_size() - 1));
    REQUIRE_FALSE(short_one.ok());
    REQUIRE_THAT(short_one.status().message(), Catch::Contains("short"));
  }
  MultiPathRecord x;
  x.set_service_id(0x0123456789ABCDEF);
  CHECK(x.service_id_msb == 0x01);
  CHECK(x.service_id_lsb == 0x23456789ABCDEF);
  CHECK(x.service_id() == 0x0123456789ABCDEF);
  // More GIDs than a MAD holds.
  std::vector<uint8_t> buf(sa_data_size);
  set_field(buf, multi_path_record_fields::sgid_count, 6);
  set_field(buf, multi_path_record_fields::dgid_count, 6);
  auto r = decode_multi_path_record(buf);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("more than 11 gids"));
  // Layout as saquery's multipath struct has it.
  x.sgid_count = 1;
  x.dgid_count = 2;
  x.independence_selector = 2;
  x.numb_path = 5;
  x.reversible = true;
  x.sl = 9;
  x.qos_class = 0xABC;
  encode(x, buf);
  CHECK(buf[5] == 0x85);
  CHECK(be(buf, 8, 2) == 0xABC9);
  CHECK(buf[13] == 0x01);
  CHECK(buf[14] == 0x80);
  CHECK(buf[15] == 1);
  CHECK(buf[16] == 2);
  CHECK(be(buf, 17, 7) == 0x23456789ABCDEF);
}
