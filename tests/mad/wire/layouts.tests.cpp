// Hand-worked byte layouts from the IBA tables, one or more per struct: they
// pin the field tables in builds without libibmad (the embedded profile).
#include <array>
#include <random>

#include <catch2/catch.hpp>

#include "mad/wire/node_description.h"
#include "wire_codecs.h"

using namespace ibsm;
using namespace ibsm::wire;

TEST_CASE("nodeinfo layout", "[wire][nodeinfo]") {
  NodeInfo ni;
  ni.node_type = NodeType::switch_;
  ni.num_ports = 36;
  ni.node_guid = Guid{0x0002C90300001234ULL};
  ni.local_port_num = 5;
  ni.vendor_id = 0x0002C9;
  std::array<uint8_t, 64> d{};
  encode(ni, d);
  CHECK(d[0] == 1);
  CHECK(d[2] == 2);
  CHECK(d[3] == 36);
  CHECK(d[12] == 0x00);
  CHECK(d[13] == 0x02);
  CHECK(d[19] == 0x34);
  CHECK(d[36] == 5);
  CHECK(d[37] == 0x00);
  CHECK(d[38] == 0x02);
  CHECK(d[39] == 0xC9);
}

TEST_CASE("portinfo layout", "[wire][portinfo]") {
  PortInfo pi;
  pi.lid = Lid{0x1234};
  pi.master_sm_lid = Lid{1};
  pi.capability_mask = port_cap::is_sm | port_cap::is_trap_supported;
  pi.local_port_num = 3;
  pi.link_speed_supported = 0x7;
  pi.port_state = PortState::active;
  pi.port_phys_state = PhysState::link_up;
  pi.link_down_default_state = 2;
  pi.m_key_protect_bits = 3;
  pi.lmc = 5;
  pi.vl_stall_count = 7;
  pi.hoq_life = 0x13;
  pi.client_reregister = true;
  pi.subnet_timeout = 18;
  pi.resp_time_value = 0x1F;
  pi.link_round_trip_latency = 0xABCDEF;
  pi.link_speed_ext_enabled = 0x1E;
  std::array<uint8_t, 64> d{};
  encode(pi, d);
  CHECK(d[16] == 0x12);
  CHECK(d[17] == 0x34);
  CHECK(d[19] == 0x01);
  CHECK(d[23] == 0x0A);
  CHECK(d[28] == 3);
  CHECK(d[32] == 0x74);
  CHECK(d[33] == 0x52);
  CHECK(d[34] == 0xC5);     // protect bits on top, 3 reserved, LMC at the bottom
  CHECK(d[42] == 0xF3);     // VLStallCount 7, HOQLife 0x13
  CHECK(d[51] == 0x92);     // ClientReregister, trap suppression 0, SubnetTimeOut 18
  CHECK(d[52] == 0x1F);     // 3 reserved bits, RespTimeValue
  CHECK(d[57] == 0xAB);
  CHECK(d[59] == 0xEF);
  CHECK(d[63] == 0x1E);
}

TEST_CASE("switchinfo layout", "[wire][switchinfo]") {
  SwitchInfo si;
  si.linear_fdb_cap = 0xC000;
  si.linear_fdb_top = 0x0102;
  si.default_port = 9;
  si.life_time_value = 0x11;
  si.port_state_change = true;
  si.optimized_sl_to_vl_mapping_programming = 1;
  si.enhanced_port0 = true;
  si.filter_raw_outbound_cap = true;
  si.multicast_fdb_top = 0xC3FF;
  std::array<uint8_t, 64> d{};
  encode(si, d);
  CHECK(d[0] == 0xC0);
  CHECK(d[6] == 0x01);
  CHECK(d[7] == 0x02);
  CHECK(d[8] == 9);
  CHECK(d[11] == 0x8D);  // 10001 1 01
  CHECK(d[16] == 0x18);  // bits 131 and 132
  CHECK(d[18] == 0xC3);
  CHECK(d[19] == 0xFF);
}

TEST_CASE("sminfo layout", "[wire][sminfo]") {
  SmInfo s;
  s.guid = Guid{0x1122334455667788ULL};
  s.act_count = 0x01020304;
  s.priority = 14;
  s.sm_state = sm_state::master;
  std::array<uint8_t, 64> d{};
  encode(s, d);
  CHECK(d[0] == 0x11);
  CHECK(d[7] == 0x88);
  CHECK(d[16] == 0x01);
  CHECK(d[19] == 0x04);
  CHECK(d[20] == 0xE3);
}

TEST_CASE("forwarding and partition tables lay entries out in order", "[wire][tables]") {
  std::array<uint8_t, 64> d{};
  LinearForwardingTable lft;
  lft.ports[0] = 1;
  lft.ports[63] = lft_unreachable_port;
  encode(lft, d);
  CHECK(d[0] == 1);
  CHECK(d[63] == 0xFF);
  CHECK(lft_block_of(64) == 1);

  MulticastForwardingTable mft;
  mft.port_masks[1] = 0x8001;
  encode(mft, d);
  CHECK(d[2] == 0x80);
  CHECK(d[3] == 0x01);
  CHECK(mft_attr_mod(5, 2) == 0x20000005u);
  CHECK(mft_block_of(0x20000005u) == 5);
  CHECK(mft_position_of(0x20000005u) == 2);

  PKeyTable pk;
  pk.p_keys[0] = default_p_key;
  pk.p_keys[31] = 0x0001;
  encode(pk, d);
  CHECK(d[0] == 0xFF);
  CHECK(d[1] == 0xFF);
  CHECK(d[62] == 0x00);
  CHECK(d[63] == 0x01);

  SlToVlTable sl2vl;
  for (uint8_t sl = 0; sl < 16; ++sl) sl2vl.vl_of_sl[sl] = static_cast<uint8_t>(15 - sl);
  encode(sl2vl, d);
  CHECK(d[0] == 0xFE);
  CHECK(d[7] == 0x10);
  CHECK(sl_to_vl_attr_mod(3, 7) == 0x0307u);

  VlArbitrationTable vla;
  vla.entries[0] = {.vl = 0xF, .weight = 0xFF};
  vla.entries[1] = {.vl = 2, .weight = 64};
  std::fill(d.begin(), d.end(), uint8_t{0xFF});
  encode(vla, d);
  CHECK(d[0] == 0x0F);  // the top nibble is reserved
  CHECK(d[1] == 0xFF);
  CHECK(d[2] == 0x02);
  CHECK(d[3] == 64);
  CHECK(vl_arbitration_attr_mod(vl_arbitration_part::high_0_31, 4) == 0x00030004u);

  GuidInfo gi;
  gi.guids[7] = Guid{0xAABBCCDDEEFF0011ULL};
  encode(gi, d);
  CHECK(d[56] == 0xAA);
  CHECK(d[63] == 0x11);
}

TEST_CASE("nodedescription keeps text up to 64 bytes", "[wire][nodedescription]") {
  std::array<uint8_t, 64> d;
  d.fill(0x55);
  encode(NodeDescription{"MT4123 ConnectX6   Mellanox Technologies"}, d);
  auto nd = decode_node_description(d);
  REQUIRE(nd.ok());
  CHECK(nd->text == "MT4123 ConnectX6   Mellanox Technologies");
  CHECK(d[63] == 0);
  encode(NodeDescription{std::string(70, 'n')}, d);
  CHECK(decode_node_description(d)->text == std::string(64, 'n'));
  std::array<uint8_t, 63> short_buf{};
  auto bad = decode_node_description(short_buf);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("63 bytes"));
}

TEST_CASE("mad header layout", "[wire][header]") {
  MadHeader h{.base_version = 1, .mgmt_class = 0x81, .class_version = 1, .method = method::get_resp,
              .status = 0x8004, .class_specific = 0x0203, .tid = 0x0102030405060708ULL,
              .attr_id = smp_attr::port_info, .attr_mod = 0xA0B0C0D0};
  std::array<uint8_t, 24> d;
  d.fill(0xFF);
  encode(h, d);
  CHECK(d == std::array<uint8_t, 24>{1, 0x81, 1, 0x81, 0x80, 0x04, 0x02, 0x03, 1, 2, 3, 4, 5, 6, 7, 8,
                                     0x00, 0x15, 0, 0, 0xA0, 0xB0, 0xC0, 0xD0});
  CHECK(h.is_response());
}

TEST_CASE("rmpp and sa header layout", "[wire][sa][rmpp]") {
  std::array<uint8_t, 256> mad{};
  RmppHeader r{.version = 1, .type = rmpp_type::data, .resp_time = 0x1F,
               .flags = rmpp_flag::active | rmpp_flag::last, .status = 0, .data1 = 3, .data2 = 412};
  encode(r, mad);
  CHECK(mad[24] == 1);
  CHECK(mad[25] == 1);
  CHECK(mad[26] == 0xFD);
  CHECK(mad[31] == 3);
  CHECK(mad[34] == 0x01);
  CHECK(mad[35] == 0x9C);
  CHECK(r.active());
  CHECK_FALSE(r.first());
  CHECK(r.last());
  SaHeader s{.sm_key = 0x1, .attr_offset = sa_attr_offset_words(108), .component_mask = 0x8000000000000001ULL};
  encode(s, mad);
  CHECK(mad[43] == 1);
  CHECK(mad[44] == 0);
  CHECK(mad[45] == 14);
  CHECK(mad[48] == 0x80);
  CHECK(mad[55] == 0x01);
}

TEST_CASE("portcounters layout", "[wire][perf]") {
  PortCounters c;
  c.port_select = 3;
  c.counter_select = 0x1234;
  c.symbol_errors = 0xA1A2;
  c.link_error_recovery = 0xB1;
  c.link_downed = 0xC1;
  c.rcv_errors = 0xD1D2;
  c.xmit_discards = 0xE1E2;
  c.local_link_integrity_errors = 0x5;
  c.excessive_buffer_overrun_errors = 0xA;
  c.vl15_dropped = 0x0F0E;
  c.xmit_data = 0x01020304;
  c.rcv_pkts = 0x0A0B0C0D;
  c.xmit_wait = 0xFFFFFFFE;
  std::array<uint8_t, port_counters_size> d{};
  encode(c, d);
  CHECK(d[0] == 0);
  CHECK(d[1] == 3);
  CHECK(d[2] == 0x12);
  CHECK(d[3] == 0x34);
  CHECK(d[4] == 0xA1);
  CHECK(d[5] == 0xA2);
  CHECK(d[6] == 0xB1);
  CHECK(d[7] == 0xC1);
  CHECK(d[8] == 0xD1);
  CHECK(d[14] == 0xE1);
  CHECK(d[19] == 0x5A);  // LocalLinkIntegrityErrors in the high nibble
  CHECK(d[22] == 0x0F);
  CHECK(d[23] == 0x0E);
  CHECK(d[24] == 0x01);
  CHECK(d[27] == 0x04);
  CHECK(d[36] == 0x0A);
  CHECK(d[39] == 0x0D);
  CHECK(d[43] == 0xFE);
  auto back = decode_port_counters(d);
  REQUIRE(back.ok());
  CHECK(*back == c);
}

TEST_CASE("portcountersextended layout", "[wire][perf]") {
  PortCountersExtended c;
  c.port_select = 1;
  c.xmit_data = 0x0102030405060708ULL;
  c.multicast_rcv_pkts = 0x1112131415161718ULL;
  std::array<uint8_t, port_counters_extended_size> d{};
  encode(c, d);
  CHECK(d[1] == 1);
  CHECK(d[8] == 0x01);
  CHECK(d[15] == 0x08);
  CHECK(d[64] == 0x11);
  CHECK(d[71] == 0x18);
  CHECK(!decode_port_counters_extended(std::span(d).first(71)).ok());
}

TEST_CASE("a perfmgt request is a class 4 version 1 gmp with data at byte 64", "[wire][perf]") {
  const MadBuffer m = build_perf_mad(method::set, perf_attr::port_counters, 0);
  CHECK(m[0] == mad_base_version);
  CHECK(m[1] == mgmt_class::perf_mgt);
  CHECK(m[2] == 1);
  CHECK(m[3] == method::set);
  CHECK(m[16] == 0x00);
  CHECK(m[17] == 0x12);
  CHECK(perf_data(m).size() == mad_size - 64);
}

TEST_CASE("an lft block's copy codec agrees with its field table", "[wire][tables]") {
  // encode/decode of LinearForwardingTable copy the 64 bytes; the field
  // table's general walk must give the same.
  std::mt19937_64 rng(64);
  for (int i = 0; i < 200; ++i) {
    LinearForwardingTable lft;
    for (auto& p : lft.ports) p = static_cast<uint8_t>(rng());
    std::array<uint8_t, 80> fast{}, general{};
    fast.fill(0xA5);
    general.fill(0xA5);
    encode(lft, fast);
    encode_struct(lft, general, lft_block_size);
    REQUIRE(fast == general);
    auto back = decode_linear_forwarding_table(fast);
    REQUIRE(back.ok());
    REQUIRE(*back == *decode_struct<LinearForwardingTable>(general, lft_block_size, "lft"));
  }
  CHECK_FALSE(decode_linear_forwarding_table(std::span<const uint8_t>(std::array<uint8_t, 63>{})).ok());
}
