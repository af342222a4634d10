// LID-routed SMPs and GMPs through the LFTs an SM programmed, SMInfo for an SM
// client, and trap 128.
#include <catch2/catch.hpp>

#include "mad/wire/mad_header.h"
#include "mad/wire/node_info.h"
#include "mad/wire/notice.h"
#include "mad/wire/response.h"
#include "mad/wire/sm_info.h"
#include "tests/mad/sim/sim_subnet_setup.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

// Runs two clients' dispatchers together until the first is idle.
void run_both(Client& a, Client& b) {
  for (int round = 0; round < 1000; ++round) {
    a.dispatcher().poll();
    b.dispatcher().poll();
    if (a.dispatcher().idle()) return;
    a.port().wait(100);
  }
  FAIL("the dispatchers did not settle");
}

MadPacket sa_get(Lid dlid) {
  MadPacket p;
  wire::MadHeader h;
  h.mgmt_class = wire::mgmt_class::subn_adm;
  h.class_version = wire::sa_class_version;
  h.method = wire::method::get;
  h.attr_id = wire::sa_attr::node_record;
  wire::encode(h, p.data);
  p.address.lid = dlid;
  p.address.qp = 1;
  p.address.qkey = wire::qp1_qkey;
  return p;
}

}  // namespace

TEST_CASE("LID-routed SMPs follow the LFTs to the port that owns the LID", "[sim][lid]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client sm(fabric, node_named(topo, "H1"), 1);
  configure_chain(topo, sm);
  CHECK(sm.port().local_port().lid == Lid{1});
  CHECK(sm.port().local_port().sm_lid == Lid{1});

  for (const PortAddress& a : chain_addresses()) {
    INFO(a.node << " port " << int{a.port} << " lid " << a.lid);
    auto r = sm.lid_get(wire::smp_attr::node_info, 0, Lid{a.lid});
    REQUIRE(r.ok());
    CHECK(smp_status(*r) == 0);
    CHECK(r->address.lid == Lid{a.lid});
    auto ni = attribute_of<wire::NodeInfo>(*r, wire::decode_node_info);
    const Node& node = topo.node(node_named(topo, a.node));
    CHECK(ni.node_guid == node.node_guid);
    if (!node.is_switch()) CHECK(ni.local_port_num == a.port);
  }
  CHECK(fabric.counters().dropped_total() == 0);

  SECTION("an LFT entry of 0xFF drops the SMP") {
    auto block = sm.dr_get(wire::smp_attr::linear_forwarding_table, 0, "0,1,2");
    REQUIRE(block.ok());
    auto lft = attribute_of<wire::LinearForwardingTable>(*block, wire::decode_linear_forwarding_table);
    lft.ports[7] = wire::lft_unreachable_port;
    std::array<uint8_t, wire::lft_block_size> payload{};
    wire::encode(lft, payload);
    REQUIRE(sm.dr_set(wire::smp_attr::linear_forwarding_table, 0, "0,1,2", payload).ok());
    CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{7}).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::no_route) == 1);
    CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{4}).ok());  // the rest still routes
  }
  SECTION("a LID above LinearFDBTop is not forwarded") {
    auto si = sm.dr_get(wire::smp_attr::switch_info, 0, "0,1");
    REQUIRE(si.ok());
    auto info = attribute_of<wire::SwitchInfo>(*si, wire::decode_switch_info);
    info.linear_fdb_top = 5;
    std::array<uint8_t, wire::switch_info_size> payload{};
    wire::encode(info, payload);
    REQUIRE(sm.dr_set(wire::smp_attr::switch_info, 0, "0,1", payload).ok());
    CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{6}).status().code() == StatusCode::timeout);
    CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{5}).ok());
    CHECK(fabric.counters().dropped_for(DropReason::no_route) == 1);
  }
  SECTION("a LID nobody has is dropped at the CA it reaches") {
    CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{40}).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::no_route) == 1);
  }
  SECTION("a LID-routed SMP to the permissive LID is answered by the sender's own SMA") {
    auto r = sm.lid_get(wire::smp_attr::node_info, 0, Lid{wire::permissive_lid});
    REQUIRE(r.ok());
    CHECK(attribute_of<wire::NodeInfo>(*r, wire::decode_node_info).node_guid == topo.node(node_named(topo, "H1")).node_guid);
  }
}

TEST_CASE("with ibsim's rule, LID-routed SMPs need Active ports", "[sim][lid]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimOptions options;
  options.lid_routed_smps_need_active = true;
  SimFabric fabric(topo, options);
  Client sm(fabric, node_named(topo, "H1"), 1);
  configure_chain(topo, sm);
  CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{7}).status().code() == StatusCode::timeout);
  CHECK(fabric.counters().dropped_for(DropReason::port_state) == 1);
  configure_chain(topo, sm, {.activate = true});
  CHECK(sm.lid_get(wire::smp_attr::node_info, 0, Lid{7}).ok());
}

TEST_CASE("GMPs are routed by LID to the client at the destination port", "[sim][gmp]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client sm(fabric, node_named(topo, "H1"), 1);
  Client sa(fabric, node_named(topo, "H2"), 1);
  int requests = 0;
  sa.dispatcher().set_request_handler([&](const MadPacket& in) {
    ++requests;
    CHECK(in.address.lid == Lid{1});
    CHECK(in.address.qp == 1);
    MadPacket answer;
    answer.data = wire::make_response(in.data);
    answer.address = in.address;
    REQUIRE(sa.dispatcher().send_now(answer).ok());
  });
  configure_chain(topo, sm);

  SECTION("not through ports that are not Active") {
    std::optional<Result<MadPacket>> result;
    sm.dispatcher().submit(sa_get(Lid{7}), [&](Result<MadPacket> r) { result = std::move(r); });
    run_both(sm, sa);
    REQUIRE(result.has_value());
    CHECK(result->status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::port_state) == 1);
    CHECK(requests == 0);
  }
  SECTION("through Active ports, both ways") {
    configure_chain(topo, sm, {.activate = true});
    std::optional<Result<MadPacket>> result;
    sm.dispatcher().submit(sa_get(Lid{7}), [&](Result<MadPacket> r) { result = std::move(r); });
    run_both(sm, sa);
    REQUIRE(result.has_value());
    REQUIRE(result->ok());
    CHECK(requests == 1);
    CHECK(result->value().address.lid == Lid{7});
    auto h = wire::decode_mad_header(result->value().data);
    REQUIRE(h.ok());
    CHECK(h->method == wire::method::get_resp);
    CHECK(h->mgmt_class == wire::mgmt_class::subn_adm);
  }
  SECTION("to a port with no client") {
    configure_chain(topo, sm, {.activate = true});
    CHECK(sm.run(sa_get(Lid{2})).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::no_client) == 1);
  }
}

TEST_CASE("SMInfo goes to the SM client at the destination, if there is one", "[sim][sminfo]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client sm(fabric, node_named(topo, "H1"), 1);
  Client other(fabric, node_named(topo, "H2"), 1);
  other.port().set_is_sm(true);
  const Guid other_guid = other.port().local_port().port_guid;
  other.dispatcher().set_request_handler([&](const MadPacket& in) {
    MadPacket answer;
    answer.data = wire::make_response(in.data);
    wire::SmInfo info;
    info.guid = other_guid;
    info.priority = 5;
    info.sm_state = wire::sm_state::standby;
    wire::encode(info, wire::smp_data(answer.data));
    answer.address = in.address;
    REQUIRE(other.dispatcher().send_now(answer).ok());
  });

  auto ask = [&](MadPacket request) {
    std::optional<Result<MadPacket>> result;
    sm.dispatcher().submit(std::move(request), [&](Result<MadPacket> r) { result = std::move(r); });
    run_both(sm, other);
    REQUIRE(result.has_value());
    return std::move(*result);
  };

  auto dr = ask(Client::dr_request(wire::method::get, wire::smp_attr::sm_info, 0, path("0,1,2,2,2")));
  REQUIRE(dr.ok());
  auto info = attribute_of<wire::SmInfo>(*dr, wire::decode_sm_info);
  CHECK(info.guid == other_guid);
  CHECK(info.sm_state == wire::sm_state::standby);

  // The SM's port says so in its capability mask.
  auto pi = sm.dr_get(wire::smp_attr::port_info, 1, "0,1,2,2,2");
  REQUIRE(pi.ok());
  CHECK((port_info_of(*pi).capability_mask & wire::port_cap::is_sm) != 0);

  // No SM at H3: dropped, as ibsim does.
  CHECK(ask(Client::dr_request(wire::method::get, wire::smp_attr::sm_info, 0, path("0,1,2,3"))).status().code() ==
        StatusCode::timeout);
  CHECK(fabric.counters().dropped_for(DropReason::no_client) == 1);

  // LID-routed, both ways.
  configure_chain(topo, sm);
  auto lid = ask(Client::lid_request(wire::method::get, wire::smp_attr::sm_info, 0, Lid{7}));
  REQUIRE(lid.ok());
  CHECK(attribute_of<wire::SmInfo>(*lid, wire::decode_sm_info).guid == other_guid);
}

TEST_CASE("a switch whose link goes down sends trap 128 to its master SM", "[sim][trap]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client sm(fabric, node_named(topo, "H1"), 1);
  std::vector<MadPacket> traps;
  sm.dispatcher().set_request_handler([&](const MadPacket& in) { traps.push_back(in); });
  configure_chain(topo, sm);

  REQUIRE(fabric.set_link({node_named(topo, "S3"), 2}, false).ok());
  CHECK(fabric.counters().traps_sent == 1);
  sm.port().wait(1000);
  sm.dispatcher().poll();
  REQUIRE(traps.size() == 1);
  auto smp = wire::parse_smp(traps[0].data);
  REQUIRE(smp.ok());
  CHECK(smp->method() == wire::method::trap);
  CHECK(smp->attr_id() == wire::smp_attr::notice);
  CHECK(traps[0].address.lid == Lid{4});
  auto notice = attribute_of<wire::Notice>(traps[0], wire::decode_notice);
  CHECK(notice.trap_number == wire::trap_number::link_state_change);
  CHECK(notice.producer_type == wire::producer_type::switch_);
  CHECK(notice.issuer_lid == Lid{4});

  // The switch's PortStateChange is set until the SM writes 1 to it.
  auto si = sm.dr_get(wire::smp_attr::switch_info, 0, "0,1,2,2");
  REQUIRE(si.ok());
  auto info = attribute_of<wire::SwitchInfo>(*si, wire::decode_switch_info);
  CHECK(info.port_state_change);
  info.port_state_change = true;
  std::array<uint8_t, wire::switch_info_size> payload{};
  wire::encode(info, payload);
  auto cleared = sm.dr_set(wire::smp_attr::switch_info, 0, "0,1,2,2", payload);
  REQUIRE(cleared.ok());
  CHECK_FALSE(attribute_of<wire::SwitchInfo>(*cleared, wire::decode_switch_info).port_state_change);

  // Replugged: another trap, the ports back in Init.
  REQUIRE(fabric.set_link({node_named(topo, "H2"), 1}, true).ok());
  CHECK(fabric.counters().traps_sent == 2);
  CHECK(fabric.port_state({node_named(topo, "S3"), 2}) == PortState::init);
  CHECK(fabric.phys_state({node_named(topo, "H2"), 1}) == PhysState::link_up);
}

TEST_CASE("a client that does not read does not stop the clock for the others", "[sim][clock]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client sm(fabric, node_named(topo, "H1"), 1);
  Client silent(fabric, node_named(topo, "H2"), 1);  // never polled
  // Its SMInfo request arrives at H2 and waits there unread; the SM times out.
  const Micros start = fabric.now();
  CHECK(sm.dr_get(wire::smp_attr::sm_info, 0, "0,1,2,2,2").status().code() == StatusCode::timeout);
  CHECK(silent.port().pending() == 1);
  CHECK(fabric.now() >= start + Client::quick().timeout);
  // And the clock moves to the next arrival, not past it.
  REQUIRE(sm.dispatcher().idle());
  sm.dispatcher().submit(Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1")),
                         [](Result<MadPacket>) {});
  sm.dispatcher().poll();
  const Micros sent = fabric.now();
  const SimOptions o;
  sm.port().wait(1'000'000);
  CHECK(fabric.now() == sent + 2 * o.hop_latency + o.sma_latency);
  CHECK(sm.port().receive().has_value());
}
