// The simulated PMA: PerfMgt Get and Set of ClassPortInfo, PortCounters and
// PortCountersExtended, LID-routed to a switch's port 0 or a CA's port.
#include <catch2/catch.hpp>

#include "mad/wire/class_port_info.h"
#include "mad/wire/perf_counters.h"
#include "tests/mad/sim/sim_subnet_setup.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

MadPacket perf_request(uint8_t method, uint16_t attr, Lid dlid, uint8_t port_select, uint16_t counter_select = 0) {
  MadPacket p;
  p.data = wire::build_perf_mad(method, attr);
  wire::set_field(wire::perf_data(p.data), wire::port_counters_fields::port_select, port_select);
  wire::set_field(wire::perf_data(p.data), wire::port_counters_fields::counter_select, counter_select);
  p.address.lid = dlid;
  p.address.qp = 1;
  p.address.qkey = wire::qp1_qkey;
  return p;
}

uint16_t gmp_status(const MadPacket& p) { return static_cast<uint16_t>(wire::get_field(p.data, wire::mad_fields::status)); }

wire::PortCounters counters_of(const MadPacket& p) {
  auto c = wire::decode_port_counters(wire::perf_data(p.data));
  REQUIRE(c.ok());
  return *c;
}

struct PmaChain {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric{topo};
  Client sm{fabric, node_named(topo, "H1"), 1};
  PmaChain() { configure_chain(topo, sm, {.activate = true}); }
  PortRef port(std::string_view node, uint8_t p) const { return PortRef{node_named(topo, node), p}; }
};

}  // namespace

TEST_CASE("the pma answers classportinfo with allportselect and the extended counters", "[sim][pma]") {
  PmaChain c;
  auto r = c.sm.run(perf_request(wire::method::get, wire::perf_attr::class_port_info, Lid{3}, 0));
  REQUIRE(r.ok());
  CHECK(gmp_status(*r) == 0);
  CHECK(r->data[1] == wire::mgmt_class::perf_mgt);
  CHECK(r->data[3] == wire::method::get_resp);
  auto cpi = wire::decode_class_port_info(wire::perf_data(r->data));
  REQUIRE(cpi.ok());
  CHECK((cpi->capability_mask & wire::perf_cap::all_port_select) != 0);
  CHECK((cpi->capability_mask & wire::perf_cap::extended_width) != 0);
  CHECK(c.fabric.counters().pma_requests == 1);
}

TEST_CASE("portcounters report what a test raised, per port, and saturate", "[sim][pma]") {
  PmaChain c;
  namespace f = wire::port_counters_fields;
  REQUIRE(c.fabric.add_port_errors(c.port("S2", 3), f::symbol_errors, 7).ok());
  REQUIRE(c.fabric.add_port_errors(c.port("S2", 3), f::local_link_integrity_errors, 20).ok());  // 4 bits: 15
  REQUIRE(c.fabric.add_port_traffic(c.port("S2", 3), 0xFFFFFFF0ULL, 100, 5, 6).ok());
  REQUIRE(c.fabric.add_port_traffic(c.port("S2", 3), 0x100, 0, 0, 0).ok());
  REQUIRE(c.fabric.add_port_errors(c.port("H2", 1), f::vl15_dropped, 2).ok());

  auto r = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{3}, 3));  // S2 port 3
  REQUIRE(r.ok());
  CHECK(gmp_status(*r) == 0);
  auto pc = counters_of(*r);
  CHECK(pc.port_select == 3);
  CHECK(pc.symbol_errors == 7);
  CHECK(pc.local_link_integrity_errors == 15);
  CHECK(pc.xmit_data == 0xFFFFFFFFu);  // saturated
  CHECK(pc.rcv_data == 100);
  CHECK(pc.xmit_pkts == 5);

  auto other = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{3}, 4));
  REQUIRE(other.ok());
  CHECK(counters_of(*other) == wire::PortCounters{.port_select = 4});

  auto h2 = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{7}, 1));
  REQUIRE(h2.ok());
  CHECK(counters_of(*h2).vl15_dropped == 2);

  auto ext = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters_extended, Lid{3}, 3));
  REQUIRE(ext.ok());
  auto x = wire::decode_port_counters_extended(wire::perf_data(ext->data));
  REQUIRE(x.ok());
  CHECK(x->xmit_data == 0xFFFFFFF0ULL + 0x100);  // 64 bits count on
  CHECK(x->rcv_pkts == 6);
}

TEST_CASE("a portcounters set clears the selected counters only", "[sim][pma]") {
  PmaChain c;
  namespace f = wire::port_counters_fields;
  REQUIRE(c.fabric.add_port_errors(c.port("S1", 2), f::symbol_errors, 9).ok());
  REQUIRE(c.fabric.add_port_errors(c.port("S1", 2), f::xmit_discards, 4).ok());
  auto r = c.sm.run(perf_request(wire::method::set, wire::perf_attr::port_counters, Lid{2}, 2,
                                 wire::counter_select::symbol_errors));
  REQUIRE(r.ok());
  CHECK(gmp_status(*r) == 0);
  CHECK(counters_of(*r).symbol_errors == 0);
  CHECK(counters_of(*r).xmit_discards == 4);
  CHECK(c.fabric.port_counters(c.port("S1", 2)).symbol_errors == 0);
  CHECK(c.fabric.port_counters(c.port("S1", 2)).xmit_discards == 4);
}

TEST_CASE("allportselect sums a switch's ports; a bad portselect is an invalid field", "[sim][pma]") {
  PmaChain c;
  namespace f = wire::port_counters_fields;
  REQUIRE(c.fabric.add_port_errors(c.port("S2", 1), f::rcv_errors, 2).ok());
  REQUIRE(c.fabric.add_port_errors(c.port("S2", 4), f::rcv_errors, 3).ok());
  auto all = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{3}, wire::perf_all_ports));
  REQUIRE(all.ok());
  CHECK(counters_of(*all).rcv_errors == 5);
  auto bad = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{3}, 9));
  REQUIRE(bad.ok());
  CHECK(gmp_status(*bad) == wire::mad_status::invalid_field);
  auto ca0 = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{7}, 0));
  REQUIRE(ca0.ok());
  CHECK(gmp_status(*ca0) == wire::mad_status::invalid_field);
}

TEST_CASE("an unresponsive node's pma answers nothing", "[sim][pma]") {
  PmaChain c;
  c.fabric.set_unresponsive(node_named(c.topo, "S3"));
  auto r = c.sm.run(perf_request(wire::method::get, wire::perf_attr::port_counters, Lid{4}, 1));
  CHECK(!r.ok());
  CHECK(c.fabric.counters().dropped_for(DropReason::unresponsive) == 1);
}
