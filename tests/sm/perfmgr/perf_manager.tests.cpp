// The performance manager inside the SubnetManager over SimFabric, in
// virtual time: the PMA sweep covers every port, keeps its period and its
// in-flight bound, reports a climbing error counter once per climb, clears
// a counter near its maximum and keeps counting, and counts a dead node.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "mad/sim/sim_fabric.h"
#include "sm/manager/subnet_manager.h"
#include "tests/mad/sim/sim_harness.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

constexpr Micros kSecond = 1'000'000;
namespace pc = wire::port_counters_fields;

class PerfLog final : public LogSink {
 public:
  bool enabled(LogLevel level, Subsystem) const override { return level <= LogLevel::info; }
  void write(LogLevel, Subsystem s, std::string_view m) override {
    if (s == Subsystem::perfmgr) lines.emplace_back(m);
  }
  size_t count(std::string_view text) const {
    size_t n = 0;
    for (const auto& l : lines) n += l.find(text) != std::string::npos;
    return n;
  }
  std::vector<std::string> lines;
};

SmConfig perf_config() {
  SmConfig c;
  c.cache_dir.clear();
  c.perfmgr = true;
  c.perfmgr_sweep_time_s = 10;
  return c;
}

// One SM at H1 of sim_chain.net (3 switches of 8 ports, 4 CA ports).
struct Bench {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric sim{topo};
  PerfLog log;
  SimPort& port = sim.attach(node_named(topo, "H1"), 1);
  std::unique_ptr<SubnetManager> sm;

  explicit Bench(const SmConfig& config = perf_config()) {
    port.set_is_sm(true);
    auto m = SubnetManager::create(port, sim.clock(), config, {}, SweepState{}, log);
    REQUIRE(m.ok());
    sm = std::move(*m);
    port.set_service([raw = sm.get()] { raw->serve_arrivals(); });
  }
  void run_for(Micros duration) {
    const Micros end = sim.now() + duration;
    while (sim.now() < end) {
      sm->poll(sim.now());
      Micros next = std::min(end, sm->next_deadline());
      if (auto due = port.next_arrival(); due && *due > sim.now()) next = std::min(next, *due);
      sim.step(std::max<Micros>(next - sim.now(), 1));
    }
  }
  // Runs until the perf manager has completed `n` sweeps.
  void run_sweeps(uint64_t n) {
    for (int i = 0; i < 10000 && perf().stats().sweeps < n; ++i) run_for(10'000);
    REQUIRE(perf().stats().sweeps >= n);
  }
  const PerfManager& perf() const { return sm->perf(); }
  PortRef at(std::string_view node, uint8_t p) const { return PortRef{node_named(topo, node), p}; }
  const PortPerf& entry(std::string_view node, uint8_t p) const {
    const PortPerf* e = perf().port(topo.node(node_named(topo, node)).node_guid, p);
    REQUIRE(e != nullptr);
    return *e;
  }
};

}  // namespace

TEST_CASE("the pma sweep reads every switch port and every ca port", "[perfmgr]") {
  Bench b;
  b.run_sweeps(1);
  CHECK(b.perf().ports().size() == 3 * 8 + 4);
  for (const auto& [key, e] : b.perf().ports()) {
    INFO(e.node_description << " port " << int{e.port});
    CHECK(e.readings == 1);
    CHECK(e.answered_last);
    CHECK(e.extended);  // the simulated PMA advertises PortCountersExtended
  }
  CHECK(b.perf().stats().unresponsive_ports == 0);
  CHECK(b.perf().error_ports().empty());
  // 3 + 3 ClassPortInfo, 28 PortCounters, 28 PortCountersExtended.
  CHECK(b.sim.counters().pma_requests == 6 + 28 + 28);
  CHECK(b.log.count("pma sweep 1: 28 ports of 6 nodes read, 0 unanswered, 0 with new errors") == 1);
}

TEST_CASE("pma sweeps start sweep_time_s apart and stay off by default", "[perfmgr]") {
  SECTION("on") {
    Bench b;
    b.run_sweeps(1);
    const Micros first = b.perf().stats().last_start;
    b.run_sweeps(3);
    CHECK(b.perf().stats().last_start - first == 20 * kSecond);
    CHECK(b.perf().stats().sweeps == 3);
    CHECK(b.entry("S2", 3).readings == 3);
    const Micros between = b.entry("S2", 3).last_read - b.entry("S2", 3).previous_read;
    CHECK(between >= 10 * kSecond);
    CHECK(between < 11 * kSecond);
  }
  SECTION("off, as OpenSM") {
    SmConfig c;
    c.cache_dir.clear();
    Bench b(c);
    b.run_for(30 * kSecond);
    CHECK(b.sm->subnet_up());
    CHECK(b.perf().stats().sweeps == 0);
    CHECK(b.sim.counters().pma_requests == 0);
    // SIGHUP with perfmgr TRUE: sweeps from then on.
    c.perfmgr = true;
    b.sm->reconfigure(c);
    b.run_sweeps(1);
    CHECK(b.perf().ports().size() == 28);
  }
}

TEST_CASE("no more pma queries are in flight than perfmgr_max_outstanding_queries", "[perfmgr]") {
  SmConfig c = perf_config();
  c.perfmgr_max_outstanding_queries = 3;
  Bench b(c);
  b.run_sweeps(2);
  CHECK(b.perf().stats().max_in_flight == 3);
  CHECK(b.perf().ports().size() == 28);
  c.perfmgr_max_outstanding_queries = 1;
  b.sm->reconfigure(c);
  b.run_sweeps(3);
  CHECK(b.perf().stats().max_in_flight == 3);  // the most ever
  // Every query answered: the bound slowed the sweep, it lost nothing.
  CHECK(b.perf().stats().unanswered == 0);
}

TEST_CASE("a climbing error counter is reported once per climb", "[perfmgr]") {
  Bench b;
  b.run_sweeps(1);
  REQUIRE(b.sim.add_port_errors(b.at("S2", 3), pc::symbol_errors, 5).ok());
  REQUIRE(b.sim.add_port_errors(b.at("S2", 3), pc::vl15_dropped, 2).ok());
  b.run_sweeps(2);
  REQUIRE(b.perf().error_ports().size() == 1);
  const PortErrorReport& r = b.perf().error_ports()[0];
  CHECK(r.node_guid == b.topo.node(node_named(b.topo, "S2")).node_guid);
  CHECK(r.port == 3);
  CHECK(r.deltas[0] == 5);   // SymbolErrorCounter
  CHECK(r.deltas[11] == 2);  // VL15Dropped
  CHECK(b.entry("S2", 3).total(PortError::symbol_errors) == 5);
  CHECK(b.log.count("errors on node") == 1);
  CHECK(b.log.count("port 3 (lid 3): SymbolErrorCounter +5 (total 5), VL15Dropped +2 (total 2)") == 1);

  b.run_sweeps(3);
  CHECK(b.perf().error_ports().empty());
  CHECK(b.log.count("errors on node") == 1);
  CHECK(b.entry("S2", 3).total(PortError::symbol_errors) == 5);

  REQUIRE(b.sim.add_port_errors(b.at("H2", 1), pc::rcv_errors, 1).ok());
  b.run_sweeps(4);
  REQUIRE(b.perf().error_ports().size() == 1);
  CHECK(b.perf().error_ports()[0].deltas[3] == 1);
  CHECK(b.log.count("errors on node") == 2);
}

TEST_CASE("errors a port had before the first reading are its baseline, not a climb", "[perfmgr]") {
  Bench b;
  REQUIRE(b.sim.add_port_errors(b.at("S1", 2), pc::link_downed, 3).ok());
  b.run_sweeps(1);
  CHECK(b.perf().error_ports().empty());
  CHECK(b.entry("S1", 2).errors[2] == 3);
  CHECK(b.entry("S1", 2).error_deltas[2] == 0);
}

TEST_CASE("a counter near its maximum is cleared and its total keeps counting", "[perfmgr]") {
  SECTION("an error counter") {
    Bench b;
    b.run_sweeps(1);
    REQUIRE(b.sim.add_port_errors(b.at("S3", 1), pc::xmit_discards, 60000).ok());  // of 65535
    b.run_sweeps(2);
    CHECK(b.entry("S3", 1).clears == 1);
    CHECK(b.sim.port_counters(b.at("S3", 1)).xmit_discards == 0);
    REQUIRE(b.sim.add_port_errors(b.at("S3", 1), pc::xmit_discards, 10000).ok());
    b.run_sweeps(3);
    CHECK(b.entry("S3", 1).total(PortError::xmit_discards) == 70000);
    CHECK(b.entry("S3", 1).error_deltas[6] == 10000);
    CHECK(b.entry("S3", 1).clears == 1);
  }
  SECTION("the 32-bit data counters, without PortCountersExtended") {
    SmConfig c = perf_config();
    c.perfmgr_query_cpi = false;  // capabilities unknown: PortCounters only
    Bench b(c);
    b.run_sweeps(1);
    CHECK(!b.entry("S2", 1).extended);
    REQUIRE(b.sim.add_port_traffic(b.at("S2", 1), 0xF0000000ULL, 0, 0, 0).ok());
    b.run_sweeps(2);
    CHECK(b.entry("S2", 1).clears == 1);
    REQUIRE(b.sim.add_port_traffic(b.at("S2", 1), 0xF0000000ULL, 0, 0, 0).ok());
    b.run_sweeps(3);
    CHECK(b.entry("S2", 1).total(PortData::xmit_data) == 2 * 0xF0000000ULL);  // past 32 bits
    CHECK(b.sim.counters().pma_requests == 3 * 28 + 2);  // no ClassPortInfo; two clears
  }
  SECTION("the 64-bit extended data counters need no clear") {
    Bench b;
    b.run_sweeps(1);
    REQUIRE(b.sim.add_port_traffic(b.at("S2", 1), 0x1F0000000ULL, 7, 3, 4).ok());
    b.run_sweeps(2);
    CHECK(b.entry("S2", 1).data[0] == 0x1F0000000ULL);
    CHECK(b.entry("S2", 1).data_deltas[0] == 0x1F0000000ULL);
    CHECK(b.entry("S2", 1).total(PortData::rcv_pkts) == 4);
    // PortCounters' own PortXmitData saturated; the totals do not read it, so it is left alone.
    CHECK(b.sim.port_counters(b.at("S2", 1)).xmit_data == 0xFFFFFFFFu);
    CHECK(b.entry("S2", 1).clears == 0);
  }
}

TEST_CASE("a dead node is counted and skipped; the sweep goes on", "[perfmgr]") {
  SmConfig c = perf_config();
  c.sweep_interval = 0;  // no light sweep notices the dead node: it stays in the subnet
  Bench b(c);
  b.run_sweeps(1);
  b.sim.set_unresponsive(node_named(b.topo, "S3"));
  REQUIRE(b.sim.add_port_errors(b.at("S1", 1), pc::rcv_errors, 1).ok());
  // Its ClassPortInfo is known from the first sweep: its 8 ports are asked and time out.
  b.run_sweeps(2);
  CHECK(b.perf().stats().unresponsive_ports == 8);
  CHECK(b.entry("S3", 1).unanswered == 1);
  CHECK(!b.entry("S3", 1).answered_last);
  CHECK(b.entry("S2", 1).readings == 2);
  REQUIRE(b.perf().error_ports().size() == 1);
  CHECK(b.log.count("8 unanswered") == 1);
  b.sim.set_unresponsive(node_named(b.topo, "S3"), false);
  b.run_sweeps(3);
  CHECK(b.perf().stats().unresponsive_ports == 0);
  CHECK(b.entry("S3", 1).answered_last);
  CHECK(b.entry("S3", 1).readings == 2);
}

TEST_CASE("perfmgr_ignore_cas reads switch ports only", "[perfmgr]") {
  SmConfig c = perf_config();
  c.perfmgr_ignore_cas = true;
  Bench b(c);
  b.run_sweeps(1);
  CHECK(b.perf().ports().size() == 24);
}

TEST_CASE("perfmgr_rm_nodes forgets the ports of nodes that left the subnet", "[perfmgr]") {
  for (bool rm : {true, false}) {
    INFO("perfmgr_rm_nodes " << rm);
    SmConfig c = perf_config();
    c.perfmgr_rm_nodes = rm;
    Bench b(c);
    b.run_sweeps(1);
    REQUIRE(b.perf().ports().size() == 28);
    // S3 and H2 behind it leave: the trap 128 brings a heavy sweep without them.
    REQUIRE(b.sim.set_link(b.at("S2", 2), false).ok());
    const uint64_t heavy = b.sm->counters().heavy_sweeps;
    for (int i = 0; i < 1000 && b.sm->counters().heavy_sweeps == heavy; ++i) b.run_for(10'000);
    REQUIRE(b.sm->subnet()->fabric.node_count() == 4);
    b.run_sweeps(b.perf().stats().sweeps + 1);
    CHECK(b.perf().ports().size() == (rm ? 3u * 8 + 4 - 8 - 1 : 28u));
    CHECK(b.perf().stats().unresponsive_ports == 0);
  }
}
