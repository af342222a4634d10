// The SMAs of SimFabric: ibsim's initial values, Get and Set of every
// attribute, port state transitions, and the statuses of what is refused.
#include <catch2/catch.hpp>

#include "mad/wire/guid_info.h"
#include "mad/wire/multicast_forwarding_table.h"
#include "mad/wire/node_description.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sl_to_vl_table.h"
#include "mad/wire/vl_arbitration_table.h"
#include "tests/mad/sim/sim_subnet_setup.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace status = wire::mad_status;

namespace {

struct Chain {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric{topo};
  Client sm{fabric, node_named(topo, "H1"), 1};
  const Node& node(std::string_view name) const { return topo.node(node_named(topo, name)); }
};

template <size_t N>
std::array<uint8_t, N> encoded(const auto& x) {
  std::array<uint8_t, N> out{};
  wire::encode(x, out);
  return out;
}

}  // namespace

TEST_CASE("PortInfo starts as ibsim's", "[sim][sma][portinfo]") {
  Chain c;
  auto ca = c.sm.dr_get(wire::smp_attr::port_info, 1, "0");
  REQUIRE(ca.ok());
  wire::PortInfo pi = port_info_of(*ca);
  CHECK(pi.port_state == PortState::init);  // cabled ports come up in Init
  CHECK(pi.port_phys_state == PhysState::link_up);
  CHECK(pi.local_port_num == 1);
  CHECK(pi.lid == Lid{0});
  CHECK(pi.link_width_active == c.node("H1").port(1).width_active);
  CHECK(pi.link_speed_active == c.node("H1").port(1).speed_active);
  CHECK((pi.capability_mask & wire::port_cap::is_trap_supported) != 0);
  CHECK((pi.capability_mask & wire::port_cap::is_sm) == 0);
  CHECK(pi.vl_cap == 4);
  CHECK(pi.operational_vls == 4);
  CHECK(pi.mtu_cap == 4);
  CHECK(pi.guid_cap == 32);

  auto port0 = c.sm.dr_get(wire::smp_attr::port_info, 0, "0,1");
  REQUIRE(port0.ok());
  pi = port_info_of(*port0);
  CHECK(pi.port_state == PortState::active);  // a switch's management port
  CHECK(pi.local_port_num == 1);              // the port the SMP entered by
  CHECK(pi.mtu_cap == 3);

  auto free_port = c.sm.dr_get(wire::smp_attr::port_info, 5, "0,1");
  REQUIRE(free_port.ok());
  pi = port_info_of(*free_port);
  CHECK(pi.port_state == PortState::down);
  CHECK(pi.port_phys_state == PhysState::polling);
  CHECK(pi.capability_mask == 0);

  // A CA answers modifier 0 for the port the SMP entered by.
  auto h3 = c.sm.dr_get(wire::smp_attr::port_info, 0, "0,1,2,4");
  REQUIRE(h3.ok());
  CHECK(port_info_of(*h3).local_port_num == 2);
  auto h3_port1 = c.sm.dr_get(wire::smp_attr::port_info, 1, "0,1,2,4");
  REQUIRE(h3_port1.ok());
  CHECK(smp_status(*h3_port1) == 0);

  auto beyond = c.sm.dr_get(wire::smp_attr::port_info, 9, "0,1");
  REQUIRE(beyond.ok());
  CHECK(smp_status(*beyond) == status::invalid_field);
}

TEST_CASE("PortInfo Set stores LIDs and moves the port state one legal step at a time", "[sim][sma][portinfo]") {
  Chain c;
  const std::string h2 = "0,1,2,2,2";

  MadPacket r = modify_port_info(c.sm, h2, 1, [](wire::PortInfo& pi) {
    pi.lid = Lid{7};
    pi.lmc = 1;
    pi.master_sm_lid = Lid{1};
    pi.master_sm_sl = 3;
    pi.gid_prefix = 0xfe80000000000000ull;
    pi.m_key_lease_period = 60;  // no M_Key: the Sets below carry none (sim_m_key.tests.cpp)
    pi.subnet_timeout = 18;
  });
  CHECK(smp_status(r) == 0);
  wire::PortInfo pi = port_info_of(r);
  CHECK(pi.lid == Lid{7});
  CHECK(pi.lmc == 1);
  CHECK(pi.master_sm_lid == Lid{1});
  CHECK(pi.master_sm_sl == 3);
  CHECK(pi.gid_prefix == 0xfe80000000000000ull);
  CHECK(pi.m_key_lease_period == 60);
  CHECK(pi.subnet_timeout == 18);
  CHECK(c.fabric.port_lid({node_named(c.topo, "H2"), 1}) == Lid{7});

  auto state_of = [&](const MadPacket& p) { return port_info_of(p).port_state; };
  auto set_state = [&](PortState s) {
    return modify_port_info(c.sm, h2, 1, [&](wire::PortInfo& x) { x.port_state = s; });
  };

  // Init -> Active skips Armed: refused, nothing changes.
  r = set_state(PortState::active);
  CHECK(smp_status(r) == status::invalid_field);
  CHECK(c.fabric.port_state({node_named(c.topo, "H2"), 1}) == PortState::init);
  // Init is the link's to reach, not the SM's.
  CHECK(smp_status(set_state(PortState::init)) == status::invalid_field);

  r = set_state(PortState::armed);
  CHECK(smp_status(r) == 0);
  CHECK(state_of(r) == PortState::armed);
  CHECK(smp_status(set_state(PortState::armed)) == status::invalid_field);  // already there
  r = set_state(PortState::active);
  CHECK(smp_status(r) == 0);
  CHECK(state_of(r) == PortState::active);

  SECTION("Down takes the link down; it retrains to Init at both ends") {
    // Clear S3's PortStateChange first (its links came up at start).
    auto before = c.sm.dr_get(wire::smp_attr::switch_info, 0, "0,1,2,2");
    REQUIRE(before.ok());
    auto info = attribute_of<wire::SwitchInfo>(*before, wire::decode_switch_info);
    info.port_state_change = true;
    auto cleared = c.sm.dr_set(wire::smp_attr::switch_info, 0, "0,1,2,2", encoded<wire::switch_info_size>(info));
    REQUIRE(cleared.ok());
    REQUIRE_FALSE(attribute_of<wire::SwitchInfo>(*cleared, wire::decode_switch_info).port_state_change);

    r = set_state(PortState::down);
    CHECK(smp_status(r) == 0);
    CHECK(state_of(r) == PortState::init);
    CHECK(c.fabric.port_state({node_named(c.topo, "S3"), 2}) == PortState::init);
    CHECK(c.fabric.phys_state({node_named(c.topo, "S3"), 2}) == PhysState::link_up);
    // The far switch saw its port change.
    auto si = c.sm.dr_get(wire::smp_attr::switch_info, 0, "0,1,2,2");
    REQUIRE(si.ok());
    CHECK(attribute_of<wire::SwitchInfo>(*si, wire::decode_switch_info).port_state_change);
  }
  SECTION("Disabled keeps the link down until Polling lets it train") {
    const std::string s3 = "0,1,2,2";
    r = modify_port_info(c.sm, s3, 2, [](wire::PortInfo& x) { x.port_phys_state = PhysState::disabled; });
    CHECK(smp_status(r) == 0);
    CHECK(port_info_of(r).port_state == PortState::down);
    CHECK(port_info_of(r).port_phys_state == PhysState::disabled);
    CHECK(c.fabric.port_state({node_named(c.topo, "H2"), 1}) == PortState::down);
    CHECK(c.fabric.phys_state({node_named(c.topo, "H2"), 1}) == PhysState::polling);
    CHECK(c.sm.dr_get(wire::smp_attr::node_info, 0, h2).status().code() == StatusCode::timeout);
    // Armed on a port whose link is down: refused.
    r = modify_port_info(c.sm, s3, 2, [](wire::PortInfo& x) { x.port_state = PortState::armed; });
    CHECK(smp_status(r) == status::invalid_field);

    r = modify_port_info(c.sm, s3, 2, [](wire::PortInfo& x) { x.port_phys_state = PhysState::polling; });
    CHECK(smp_status(r) == 0);
    CHECK(port_info_of(r).port_state == PortState::init);
    CHECK(port_info_of(r).port_phys_state == PhysState::link_up);
    CHECK(c.sm.dr_get(wire::smp_attr::node_info, 0, h2).ok());
  }
  SECTION("a CA's port is Set through itself only") {
    r = modify_port_info(c.sm, "0,1,2,4", 1, [](wire::PortInfo& x) { x.lid = Lid{9}; });
    CHECK(smp_status(r) == status::invalid_field);
  }
  SECTION("OperationalVLs above VLCap is an invalid field") {
    r = modify_port_info(c.sm, h2, 1, [](wire::PortInfo& x) { x.operational_vls = 5; });
    CHECK(smp_status(r) == status::invalid_field);
    r = modify_port_info(c.sm, h2, 1, [](wire::PortInfo& x) { x.operational_vls = 2; });
    CHECK(port_info_of(r).operational_vls == 2);
  }
}

TEST_CASE("SwitchInfo: ibsim's capacities, LinearFDBTop and LifeTimeValue writable", "[sim][sma][switchinfo]") {
  Chain c;
  auto si = c.sm.dr_get(wire::smp_attr::switch_info, 0, "0,1");
  REQUIRE(si.ok());
  auto info = attribute_of<wire::SwitchInfo>(*si, wire::decode_switch_info);
  const SimOptions defaults;
  CHECK(info.linear_fdb_cap == defaults.linear_fdb_cap);
  CHECK(info.multicast_fdb_cap == defaults.multicast_fdb_cap);
  CHECK(info.linear_fdb_top == 0);
  CHECK(info.port_state_change);  // its links came up
  CHECK(info.partition_enforcement_cap == 64);

  info.linear_fdb_top = 100;
  info.life_time_value = 17;
  info.port_state_change = false;  // writing 0 leaves it set
  auto set = c.sm.dr_set(wire::smp_attr::switch_info, 0, "0,1", encoded<wire::switch_info_size>(info));
  REQUIRE(set.ok());
  auto after = attribute_of<wire::SwitchInfo>(*set, wire::decode_switch_info);
  CHECK(after.linear_fdb_top == 100);
  CHECK(after.life_time_value == 17);
  CHECK(after.port_state_change);

  info.linear_fdb_top = defaults.linear_fdb_cap;  // beyond the table
  set = c.sm.dr_set(wire::smp_attr::switch_info, 0, "0,1", encoded<wire::switch_info_size>(info));
  REQUIRE(set.ok());
  CHECK(smp_status(*set) == status::invalid_field);

  auto ca = c.sm.dr_get(wire::smp_attr::switch_info, 0, "0");
  REQUIRE(ca.ok());
  CHECK(smp_status(*ca) == status::method_attr_unsupported);
}

TEST_CASE("LFT and MFT blocks are stored as written", "[sim][sma][lft]") {
  Chain c;
  wire::LinearForwardingTable lft;
  for (size_t i = 0; i < lft.ports.size(); ++i) lft.ports[i] = static_cast<uint8_t>(i % 9);
  auto set = c.sm.dr_set(wire::smp_attr::linear_forwarding_table, 3, "0,1,2", encoded<wire::lft_block_size>(lft));
  REQUIRE(set.ok());
  CHECK(smp_status(*set) == 0);
  auto got = c.sm.dr_get(wire::smp_attr::linear_forwarding_table, 3, "0,1,2");
  REQUIRE(got.ok());
  CHECK(attribute_of<wire::LinearForwardingTable>(*got, wire::decode_linear_forwarding_table) == lft);
  auto unwritten = c.sm.dr_get(wire::smp_attr::linear_forwarding_table, 2, "0,1,2");
  REQUIRE(unwritten.ok());
  for (uint8_t p : attribute_of<wire::LinearForwardingTable>(*unwritten, wire::decode_linear_forwarding_table).ports)
    CHECK(p == wire::lft_unreachable_port);
  const uint32_t blocks = SimOptions{}.linear_fdb_cap / wire::lft_block_size;
  auto beyond = c.sm.dr_get(wire::smp_attr::linear_forwarding_table, blocks, "0,1,2");
  REQUIRE(beyond.ok());
  CHECK(smp_status(*beyond) == status::invalid_field);
  auto on_ca = c.sm.dr_get(wire::smp_attr::linear_forwarding_table, 0, "0");
  REQUIRE(on_ca.ok());
  CHECK(smp_status(*on_ca) == status::method_attr_unsupported);

  wire::MulticastForwardingTable mft;
  for (size_t i = 0; i < mft.port_masks.size(); ++i) mft.port_masks[i] = static_cast<uint16_t>(0x0101u << (i % 8));
  set = c.sm.dr_set(wire::smp_attr::multicast_forwarding_table, wire::mft_attr_mod(5, 0), "0,1",
                    encoded<wire::mft_block_size>(mft));
  REQUIRE(set.ok());
  got = c.sm.dr_get(wire::smp_attr::multicast_forwarding_table, wire::mft_attr_mod(5, 0), "0,1");
  REQUIRE(got.ok());
  CHECK(attribute_of<wire::MulticastForwardingTable>(*got, wire::decode_multicast_forwarding_table) == mft);
  got = c.sm.dr_get(wire::smp_attr::multicast_forwarding_table, wire::mft_attr_mod(4, 0), "0,1");
  REQUIRE(got.ok());
  CHECK(attribute_of<wire::MulticastForwardingTable>(*got, wire::decode_multicast_forwarding_table) ==
        wire::MulticastForwardingTable{});
  // An 8-port switch has one position (ports 0-15).
  got = c.sm.dr_get(wire::smp_attr::multicast_forwarding_table, wire::mft_attr_mod(5, 1), "0,1");
  REQUIRE(got.ok());
  CHECK(smp_status(*got) == status::invalid_field);
}

TEST_CASE("P_Key, SL-to-VL and VL arbitration tables: ibsim's defaults, then as written", "[sim][sma][tables]") {
  Chain c;
  // P_Keys: the default partition in entry 0; a CA holds 64, a switch's port 0 8.
  auto pk = c.sm.dr_get(wire::smp_attr::p_key_table, 0, "0");
  REQUIRE(pk.ok());
  auto keys = attribute_of<wire::PKeyTable>(*pk, wire::decode_p_key_table);
  CHECK(keys.p_keys[0] == wire::default_p_key);
  CHECK(keys.p_keys[1] == 0);
  keys.p_keys[1] = 0x8001;
  auto set = c.sm.dr_set(wire::smp_attr::p_key_table, 0, "0", encoded<wire::p_key_table_size>(keys));
  REQUIRE(set.ok());
  CHECK(attribute_of<wire::PKeyTable>(*set, wire::decode_p_key_table).p_keys[1] == 0x8001);
  auto block2 = c.sm.dr_get(wire::smp_attr::p_key_table, 2, "0");
  REQUIRE(block2.ok());
  CHECK(smp_status(*block2) == status::invalid_field);
  // A switch: bits 31-16 name the port. Port 0 holds 8 keys.
  wire::PKeyTable full;
  full.p_keys.fill(0x8002);
  set = c.sm.dr_set(wire::smp_attr::p_key_table, 0, "0,1", encoded<wire::p_key_table_size>(full));
  REQUIRE(set.ok());
  keys = attribute_of<wire::PKeyTable>(*set, wire::decode_p_key_table);
  CHECK(keys.p_keys[7] == 0x8002);
  CHECK(keys.p_keys[8] == 0);
  auto ext = c.sm.dr_get(wire::smp_attr::p_key_table, (3u << 16) | 1, "0,1");
  REQUIRE(ext.ok());
  CHECK(smp_status(*ext) == 0);
  ext = c.sm.dr_get(wire::smp_attr::p_key_table, (9u << 16), "0,1");
  REQUIRE(ext.ok());
  CHECK(smp_status(*ext) == status::invalid_field);

  // SL to VL: SL i on VL i, SL15 on VL7; a switch keeps one table per port pair.
  auto sl = c.sm.dr_get(wire::smp_attr::sl_to_vl_mapping_table, wire::sl_to_vl_attr_mod(1, 2), "0,1");
  REQUIRE(sl.ok());
  auto table = attribute_of<wire::SlToVlTable>(*sl, wire::decode_sl_to_vl_table);
  for (size_t i = 0; i < 15; ++i) CHECK(table.vl_of_sl[i] == i);
  CHECK(table.vl_of_sl[15] == 7);
  wire::SlToVlTable zeros;
  set = c.sm.dr_set(wire::smp_attr::sl_to_vl_mapping_table, wire::sl_to_vl_attr_mod(1, 2), "0,1",
                    encoded<wire::sl_to_vl_table_size>(zeros));
  REQUIRE(set.ok());
  CHECK(attribute_of<wire::SlToVlTable>(*set, wire::decode_sl_to_vl_table) == zeros);
  sl = c.sm.dr_get(wire::smp_attr::sl_to_vl_mapping_table, wire::sl_to_vl_attr_mod(2, 1), "0,1");
  REQUIRE(sl.ok());
  CHECK(attribute_of<wire::SlToVlTable>(*sl, wire::decode_sl_to_vl_table) == table);
  sl = c.sm.dr_get(wire::smp_attr::sl_to_vl_mapping_table, wire::sl_to_vl_attr_mod(9, 1), "0,1");
  REQUIRE(sl.ok());
  CHECK(smp_status(*sl) == status::invalid_field);

  // VL arbitration: 8 entries per table; low VL1-7 weight 4, high VL0 weight 4.
  const uint32_t low = wire::vl_arbitration_attr_mod(wire::vl_arbitration_part::low_0_31, 0);
  const uint32_t high = wire::vl_arbitration_attr_mod(wire::vl_arbitration_part::high_0_31, 0);
  auto va = c.sm.dr_get(wire::smp_attr::vl_arbitration_table, low, "0");
  REQUIRE(va.ok());
  auto arb = attribute_of<wire::VlArbitrationTable>(*va, wire::decode_vl_arbitration_table);
  CHECK(arb.entries[0].weight == 0);
  CHECK(arb.entries[1].vl == 1);
  CHECK(arb.entries[1].weight == 4);
  CHECK(arb.entries[8].weight == 0);  // beyond the capacity
  va = c.sm.dr_get(wire::smp_attr::vl_arbitration_table, high, "0");
  REQUIRE(va.ok());
  CHECK(attribute_of<wire::VlArbitrationTable>(*va, wire::decode_vl_arbitration_table).entries[0].weight == 4);
  arb.entries[2] = {2, 9};
  set = c.sm.dr_set(wire::smp_attr::vl_arbitration_table, low, "0", encoded<wire::vl_arbitration_table_size>(arb));
  REQUIRE(set.ok());
  CHECK(attribute_of<wire::VlArbitrationTable>(*set, wire::decode_vl_arbitration_table).entries[2].weight == 9);
  va = c.sm.dr_get(wire::smp_attr::vl_arbitration_table,
                   wire::vl_arbitration_attr_mod(wire::vl_arbitration_part::low_32_63, 0), "0");
  REQUIRE(va.ok());
  CHECK(smp_status(*va) == status::invalid_field);
}

TEST_CASE("NodeDescription, GUIDInfo, and the read-only attributes", "[sim][sma]") {
  Chain c;
  auto nd = c.sm.dr_get(wire::smp_attr::node_description, 0, "0,1,2,2");
  REQUIRE(nd.ok());
  auto text = wire::decode_node_description(wire::smp_data(nd->data));
  REQUIRE(text.ok());
  CHECK(text->text == c.node("S3").description);
  nd = c.sm.dr_get(wire::smp_attr::node_description, 0, "0,1");
  REQUIRE(nd.ok());
  CHECK(wire::decode_node_description(wire::smp_data(nd->data))->text == c.node("S1").description);

  auto gi = c.sm.dr_get(wire::smp_attr::guid_info, 0, "0,1,2,4");
  REQUIRE(gi.ok());
  auto guids = attribute_of<wire::GuidInfo>(*gi, wire::decode_guid_info);
  CHECK(guids.guids[0] == c.node("H3").port(2).guid);
  CHECK(guids.guids[1] == Guid{});
  gi = c.sm.dr_get(wire::smp_attr::guid_info, 1, "0,1");  // a switch has one GUID
  REQUIRE(gi.ok());
  CHECK(smp_status(*gi) == status::invalid_field);

  std::array<uint8_t, 64> zeros{};
  for (uint16_t attr : {wire::smp_attr::node_info, wire::smp_attr::node_description, wire::smp_attr::guid_info}) {
    auto set = c.sm.dr_set(attr, 0, "0,1", zeros);
    REQUIRE(set.ok());
    CHECK(smp_status(*set) == status::method_attr_unsupported);
  }
}

TEST_CASE("unsupported attributes and methods get an error status, not silence", "[sim][sma]") {
  Chain c;
  for (uint16_t attr : {wire::smp_attr::vendor_diag, wire::smp_attr::led_info, uint16_t{0x00FF}, wire::smp_attr::notice}) {
    INFO("attribute " << attr);
    auto r = c.sm.dr_get(attr, 0, "0,1");
    REQUIRE(r.ok());
    CHECK(smp_status(*r) == status::method_attr_unsupported);
  }
  MadPacket table = Client::dr_request(wire::method::get_table, wire::smp_attr::node_info, 0, path("0,1"));
  auto r = c.sm.run(table);
  REQUIRE(r.ok());
  CHECK(r->data[3] == wire::method::get_table_resp);
  CHECK(smp_status(*r) == status::method_unsupported);

  MadPacket version = Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1"));
  version.data[2] = 2;  // SMP class version 2
  r = c.sm.run(version);
  REQUIRE(r.ok());
  CHECK(smp_status(*r) == status::bad_version);

  // Send has no response: nothing comes back.
  MadPacket send = Client::dr_request(wire::method::send, wire::smp_attr::node_info, 0, path("0,1"));
  CHECK(c.sm.dispatcher().send_now(send).ok());
  c.sm.port().wait(1000);
  CHECK_FALSE(c.sm.port().receive().has_value());
  CHECK(c.fabric.counters().dropped_for(DropReason::no_response_method) == 1);
}
