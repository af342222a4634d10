// Fault injection, counters and determinism of SimFabric.
#include <catch2/catch.hpp>

#include "mad/wire/node_info.h"
#include "tests/mad/sim/sim_subnet_setup.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

const char* const chain_paths[] = {"0", "0,1", "0,1,2", "0,1,2,3", "0,1,2,4", "0,1,2,2", "0,1,2,2,2"};

struct Outcome {
  SimCounters counters;
  uint64_t sent = 0;
  uint64_t retries = 0;
  uint64_t timeouts = 0;
  int ok = 0;
  Micros end = 0;
  bool operator==(const Outcome&) const = default;
};

// `rounds` NodeInfo queries to every node of sim_chain.net at once, with drops.
Outcome lossy_sweep(double rate, uint64_t seed, int rounds, int retries) {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  fabric.set_drop_rate_all(rate, seed);
  Client c(fabric, node_named(topo, "H1"), 1, DispatcherOptions{.window = 4, .timeout = 1000, .retries = retries});
  Outcome out;
  for (int i = 0; i < rounds; ++i)
    for (const char* p : chain_paths)
      c.dispatcher().submit(Client::dr_request(wire::method::get, wire::smp_attr::node_info, 0, path(p)),
                            [&](Result<MadPacket> r) { out.ok += r.ok(); });
  c.dispatcher().run_until_idle();
  out.counters = fabric.counters();
  out.sent = c.dispatcher().stats().sent;
  out.retries = c.dispatcher().stats().retries;
  out.timeouts = c.dispatcher().stats().timeouts;
  out.end = fabric.now();
  return out;
}

}  // namespace

TEST_CASE("a node dropping every SMP it answers times out; its neighbours do not", "[sim][faults]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client c(fabric, node_named(topo, "H1"), 1, DispatcherOptions{.window = 4, .timeout = 1000, .retries = 2});
  fabric.set_drop_rate(node_named(topo, "S2"), 1.0, 42);
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2").status().code() == StatusCode::timeout);
  CHECK(fabric.counters().dropped_for(DropReason::injected) == 3);  // the first attempt and two retries
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1").ok());
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2,2").ok());  // forwarding goes on
  fabric.set_drop_rate(node_named(topo, "S2"), 0.0, 42);
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2").ok());
}

TEST_CASE("with 30% of SMPs dropped, retries still complete every query", "[sim][faults]") {
  const Outcome out = lossy_sweep(0.3, 7, 20, 10);
  const int queries = 20 * static_cast<int>(std::size(chain_paths));
  CHECK(out.ok == queries);
  CHECK(out.timeouts == 0);
  CHECK(out.counters.dropped_for(DropReason::injected) > 0);
  CHECK(out.retries == out.counters.dropped_for(DropReason::injected));
  CHECK(out.counters.responses_sent == static_cast<uint64_t>(queries));
  CHECK(out.sent == static_cast<uint64_t>(queries) + out.retries);
}

TEST_CASE("identical runs give identical counters", "[sim][faults][determinism]") {
  const Outcome a = lossy_sweep(0.3, 99, 10, 3);
  const Outcome b = lossy_sweep(0.3, 99, 10, 3);
  CHECK(a == b);
  CHECK(a.counters.dropped_for(DropReason::injected) > 0);
  CHECK(a.end > 0);
}

TEST_CASE("an unresponsive node answers nothing and forwards no directed route", "[sim][faults]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client c(fabric, node_named(topo, "H1"), 1);
  fabric.set_unresponsive(node_named(topo, "S2"));
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2").status().code() == StatusCode::timeout);
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2,2").status().code() == StatusCode::timeout);
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1").ok());
  CHECK(fabric.counters().dropped_for(DropReason::unresponsive) == 2);
  fabric.set_unresponsive(node_named(topo, "S2"), false);
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2,2").ok());
}

TEST_CASE("a dropped attribute loses only that attribute, like ibsim's Error command", "[sim][faults]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client c(fabric, node_named(topo, "H1"), 1);
  fabric.set_drop_attribute(node_named(topo, "S1"), wire::smp_attr::node_info);
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1").status().code() == StatusCode::timeout);
  CHECK(c.dr_get(wire::smp_attr::node_description, 0, "0,1").ok());
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2").ok());
  fabric.clear_faults();
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1").ok());
}

TEST_CASE("pulling and replugging a cable", "[sim][faults]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client c(fabric, node_named(topo, "H1"), 1);
  const PortRef s1{node_named(topo, "S1"), 2};
  const PortRef s2{node_named(topo, "S2"), 1};

  REQUIRE(fabric.set_link(s1, false).ok());
  for (PortRef end : {s1, s2}) {
    CHECK(fabric.port_state(end) == PortState::down);
    CHECK(fabric.phys_state(end) == PhysState::polling);
  }
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2").status().code() == StatusCode::timeout);
  auto pi = c.dr_get(wire::smp_attr::port_info, 2, "0,1");
  REQUIRE(pi.ok());
  CHECK(port_info_of(*pi).port_state == PortState::down);

  REQUIRE(fabric.set_link(s2, true).ok());
  for (PortRef end : {s1, s2}) {
    CHECK(fabric.port_state(end) == PortState::init);
    CHECK(fabric.phys_state(end) == PhysState::link_up);
  }
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,2").ok());

  CHECK(fabric.set_link({node_named(topo, "S1"), 5}, false).code() == StatusCode::failed_precondition);
  CHECK(fabric.set_link({node_named(topo, "S1"), 0}, false).code() == StatusCode::invalid_argument);
  CHECK(fabric.set_link({node_named(topo, "S1"), 9}, false).code() == StatusCode::invalid_argument);
}

TEST_CASE("counters tell what came in, what was answered and what was dropped", "[sim][counters]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client c(fabric, node_named(topo, "H1"), 1);
  for (const char* p : chain_paths) REQUIRE(c.dr_get(wire::smp_attr::node_info, 0, p).ok());
  REQUIRE(c.dr_get(wire::smp_attr::port_info, 1, "0").ok());
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1,7").status().code() == StatusCode::timeout);

  const SimCounters& n = fabric.counters();
  const size_t paths = std::size(chain_paths);
  const uint8_t dr = wire::mgmt_class::subn_directed_route;
  CHECK(n.mads_in == paths + 2);
  CHECK(n.received(dr, wire::method::get, wire::smp_attr::node_info) == paths + 1);
  CHECK(n.received(dr, wire::method::get, wire::smp_attr::port_info) == 1);
  CHECK(n.received(dr, wire::method::set, wire::smp_attr::port_info) == 0);
  CHECK(n.sma_requests == paths + 1);
  CHECK(n.responses_sent == paths + 1);
  CHECK(n.delivered == paths + 1);
  CHECK(n.dropped_for(DropReason::link_down) == 1);
  CHECK(n.dropped_total() == 1);
  // The dispatcher's own count of what it sent agrees.
  CHECK(c.dispatcher().stats().sent_by_kind == n.received_by_kind);

  fabric.reset_counters();
  CHECK(fabric.counters() == SimCounters{});
}

TEST_CASE("dropped requests can come back as timed out, as the kernel does", "[sim][faults]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimOptions options;
  options.report_send_timeouts = true;
  SimFabric fabric(topo, options);
  Client c(fabric, node_named(topo, "H1"), 1, DispatcherOptions{.window = 4, .timeout = 50'000, .retries = 1});
  fabric.set_unresponsive(node_named(topo, "S1"));
  CHECK(c.dr_get(wire::smp_attr::node_info, 0, "0,1").status().code() == StatusCode::timeout);
  CHECK(fabric.counters().send_timeouts == 2);
  CHECK(c.dispatcher().stats().retries == 1);
}
