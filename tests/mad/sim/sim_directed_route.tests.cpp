// Directed-route SMPs through SimFabric (IBA 14.2.2): where they arrive, what
// the responses carry back, and what is dropped.
#include <catch2/catch.hpp>

#include "mad/wire/node_info.h"
#include "mad/wire/smp.h"
#include "tests/mad/sim/sim_harness.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

struct Hop {
  NodeIndex node;
  uint8_t entered = 0;
};

// Walks `p` through the topology model: the node reached and the port it was
// entered by at each hop (entry 0 is the start, entered by the client's port).
std::vector<Hop> walk(const Fabric& f, NodeIndex start, uint8_t start_port, const DrPath& p) {
  std::vector<Hop> hops{{start, start_port}};
  NodeIndex node = start;
  for (int i = 1; i <= p.hops(); ++i) {
    const Port& out = f.node(node).port(p.port(i));
    REQUIRE(out.connected());
    hops.push_back({out.remote_node, out.remote_port});
    node = out.remote_node;
  }
  return hops;
}

}  // namespace

TEST_CASE("NodeInfo answers over directed routes of 0 to 4 hops", "[sim][dr]") {
  Fabric topo = load_netfile("sim_chain.net");
  const NodeIndex h1 = node_named(topo, "H1");
  SimFabric fabric(topo);
  Client client(fabric, h1, 1);

  const char* paths[] = {"0", "0,1", "0,1,2", "0,1,2,3", "0,1,2,4", "0,1,2,2", "0,1,2,2,2"};
  for (const char* text : paths) {
    INFO("path " << text);
    const DrPath p = path(text);
    const std::vector<Hop> expect = walk(topo, h1, 1, p);
    const Hop& dest = expect.back();
    const Node& dnode = topo.node(dest.node);

    auto r = client.dr_get(wire::smp_attr::node_info, 0, text);
    REQUIRE(r.ok());
    auto smp = wire::parse_smp(r->data);
    REQUIRE(smp.ok());
    CHECK(smp->method() == wire::method::get_resp);
    CHECK(smp->status() == 0);
    CHECK(smp->direction());  // D = 1 on the way back
    CHECK(smp->hop_count() == p.hops());
    CHECK(smp->hop_pointer() == 0);  // walked all the way back
    // The return path holds, at each hop, the port the request entered by.
    for (int i = 1; i <= p.hops(); ++i) CHECK(smp->return_path().port(i) == expect[static_cast<size_t>(i)].entered);
    CHECK(smp->initial_path() == p);

    auto ni = attribute_of<wire::NodeInfo>(*r, wire::decode_node_info);
    CHECK(ni.node_guid == dnode.node_guid);
    CHECK(ni.node_type == dnode.type);
    CHECK(ni.num_ports == dnode.num_ports);
    CHECK(ni.local_port_num == dest.entered);
    const Guid port_guid = dnode.is_switch() ? dnode.node_guid : dnode.port(dest.entered).guid;
    CHECK(ni.port_guid == port_guid);
    CHECK(r->address.lid == Lid{wire::permissive_lid});
  }
  CHECK(fabric.counters().dropped_total() == 0);
  CHECK(fabric.counters().responses_sent == std::size(paths));
}

TEST_CASE("a directed route may turn back through the port it came in by", "[sim][dr]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client client(fabric, node_named(topo, "H1"), 1);
  // H1 -> S1 -> S2 -> back to S1 by S2's port 1: NodeInfo of S1, entered by port 2.
  auto r = client.dr_get(wire::smp_attr::node_info, 0, "0,1,2,1");
  REQUIRE(r.ok());
  auto ni = attribute_of<wire::NodeInfo>(*r, wire::decode_node_info);
  CHECK(ni.node_guid == topo.node(node_named(topo, "S1")).node_guid);
  CHECK(ni.local_port_num == 2);
}

TEST_CASE("an SM on a switch's port 0 sends directed routes out of any switch port", "[sim][dr]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client client(fabric, node_named(topo, "S2"), 0);
  auto self = client.dr_get(wire::smp_attr::node_info, 0, "0");
  REQUIRE(self.ok());
  CHECK(attribute_of<wire::NodeInfo>(*self, wire::decode_node_info).local_port_num == 0);
  auto h3 = client.dr_get(wire::smp_attr::node_info, 0, "0,4");
  REQUIRE(h3.ok());
  auto ni = attribute_of<wire::NodeInfo>(*h3, wire::decode_node_info);
  CHECK(ni.node_guid == topo.node(node_named(topo, "H3")).node_guid);
  CHECK(ni.local_port_num == 2);
}

TEST_CASE("directed-route SMPs that break the spec's rules are dropped", "[sim][dr]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client client(fabric, node_named(topo, "H1"), 1);

  SECTION("out of a port with no cable") {
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,1,5").status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::link_down) == 1);
  }
  SECTION("out of a port whose link is down") {
    REQUIRE(fabric.set_link({node_named(topo, "S2"), 2}, false).ok());
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,1,2,2").status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::link_down) == 1);
    // The part of the path before the down link still answers.
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,1,2").ok());
  }
  SECTION("a hop pointer that is not 0 when sent") {
    MadPacket p = Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1,2"));
    wire::set_field(p.data, wire::smp_fields::hop_pointer, 2);
    CHECK(client.run(p).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::malformed) == 1);
  }
  SECTION("a hop count beyond 63") {
    MadPacket p = Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1"));
    wire::set_field(p.data, wire::smp_fields::hop_count, 64);
    CHECK(client.run(p).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::malformed) == 1);
  }
  SECTION("a response whose hop pointer does not sit past the path") {
    MadPacket p = Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1"));
    wire::set_field(p.data, wire::smp_fields::direction, 1);
    wire::set_field(p.data, wire::smp_fields::hop_pointer, 1);
    CHECK(client.run(p).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::malformed) == 1);
  }
  SECTION("a CA asked to forward") {
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,1,2,3,2").status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::invalid_dr_path) == 1);
  }
  SECTION("a first hop that is not the CA's own port") {
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,2").status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::invalid_dr_path) == 1);
  }
  SECTION("a path naming port 0 or a port the switch lacks") {
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,1,0").status().code() == StatusCode::timeout);
    CHECK(client.dr_get(wire::smp_attr::node_info, 0, "0,1,9").status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::invalid_dr_path) == 2);
  }
  SECTION("DrSLID or DrDLID not permissive (LID-routed parts)") {
    MadPacket p = Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1"));
    wire::set_field(p.data, wire::smp_fields::dr_dlid, 5);
    CHECK(client.run(p).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::dr_lid_routed_part) == 1);
  }
  SECTION("a MAD with a bad base version") {
    MadPacket p = Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path("0,1"));
    p.data[0] = 2;
    CHECK(client.run(p).status().code() == StatusCode::timeout);
    CHECK(fabric.counters().dropped_for(DropReason::malformed) == 1);
  }
  CHECK(fabric.counters().responses_sent <= 1);
}
