// The master's choice of sweep over SimFabric in virtual time: a trap 128
// after a cable pull or its return leads to an incremental resweep (the
// kind the history and the metrics show), far cheaper than a heavy one,
// after which every pair is delivered; with incremental_sweeps off it is a
// heavy sweep. A node that goes missing keeps its routes.
#include <catch2/catch.hpp>

#include "tests/sm/manager/failover_bench.h"
#include "tests/sm/sweep/sweep_harness.h"

namespace ibsm::test {
namespace {

// The sweep lines the SM logs, for the message of a failed check.
class SweepLog final : public LogSink {
 public:
  bool enabled(LogLevel level, Subsystem s) const override {
    return level <= LogLevel::info && (s == Subsystem::sweep || s == Subsystem::state);
  }
  void write(LogLevel, Subsystem, std::string_view message) override {
    if (message.find("phase") == std::string_view::npos) text += std::string(message) + "\n";
  }
  std::string text;
};

Fabric fat_tree() { return must_fabric(topogen::kary_ntree({.k = 4, .n = 3})); }

uint16_t top_of(const SubnetSnapshot& s) {
  uint16_t top = 0;
  for (const auto& si : s.switch_info) top = std::max(top, si.linear_fdb_top);
  return top;
}

// The first switch-to-switch cable of `name`.
PortRef uplink(const Fabric& f, const char* name) {
  const NodeIndex n = *f.find_by_name(name);
  for (uint8_t p = 1; p <= f.node(n).num_ports; ++p) {
    const Port& port = f.node(n).port(p);
    if (port.connected() && f.node(port.remote_node).is_switch()) return PortRef{n, p};
  }
  FAIL("no uplink");
  return {};
}

TEST_CASE("a trap 128 after a cable pull and its return leads to incremental sweeps", "[manager][incremental]") {
  FailoverBench b(fat_tree());
  SmConfig config = b.config(1);
  config.sweep_interval = 10;
  SubnetManager& m = start_master(b, config);
  const uint64_t heavy = m.counters().heavy_sweeps;
  const uint64_t heavy_mads = m.sweep_stats(SweepKind::heavy).last_mads;
  const PortRef cable = uplink(b.sim().topology(), "leaf-3");

  REQUIRE(b.sim().set_link(cable, false).ok());
  REQUIRE(b.run_until_true([&] { return m.counters().incremental_sweeps == 1; }, 3 * kSecond));
  CHECK(m.counters().heavy_sweeps == heavy);
  CHECK(std::string(m.last_sweep_record().kind) == "incremental");
  CHECK(m.subnet_up());
  const uint64_t pull_mads = m.sweep_stats(SweepKind::incremental).last_mads;
  INFO("heavy " << heavy_mads << " mads, pull " << pull_mads);
  CHECK(pull_mads * 5 < heavy_mads);
  CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());

  REQUIRE(b.sim().set_link(cable, true).ok());
  REQUIRE(b.run_until_true([&] { return m.counters().incremental_sweeps == 2; }, 3 * kSecond));
  CHECK(m.counters().heavy_sweeps == heavy);
  CHECK(m.subnet_up());
  CHECK(m.sweep_stats(SweepKind::incremental).last_mads * 5 < heavy_mads);
  CHECK(b.sim().port_state(cable) == PortState::active);
  CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());
  // The other end's trap may come after the first pass: a pass that finds
  // nothing changed (one switch read). Then the light sweep finds nothing.
  b.run_for(kSecond);
  const uint64_t settled = m.counters().incremental_sweeps;
  CHECK(settled <= 3);
  b.run_for(11 * kSecond);
  std::string history;
  for (const SweepRecord& r : m.sweep_history()) history += fmt::format("{} at {}: {} mads; ", r.kind, r.started, r.mads);
  INFO(history);
  CHECK(m.counters().heavy_sweeps == heavy);
  CHECK(m.counters().incremental_sweeps == settled);
}

TEST_CASE("a switch lost and returned: incremental sweeps, and the SA's snapshot follows", "[manager][incremental]") {
  FailoverBench b(fat_tree());
  SweepLog log;
  b.set_log(log);
  SmConfig config = b.config(1);
  config.sweep_interval = 10;
  SubnetManager& m = start_master(b, config);
  const uint64_t heavy = m.counters().heavy_sweeps;
  const Fabric& topo = b.sim().topology();
  const NodeIndex lost = *topo.find_by_name("agg-5");
  const Guid guid = topo.node(lost).node_guid;
  REQUIRE(m.sa().snapshot()->fabric.find_by_node_guid(guid));
  for (uint8_t p = 1; p <= topo.node(lost).num_ports; ++p)
    if (topo.node(lost).port(p).connected()) REQUIRE(b.sim().set_link(PortRef{lost, p}, false).ok());
  REQUIRE(b.run_until_true([&] { return !m.sa().snapshot()->fabric.find_by_node_guid(guid); }, 3 * kSecond));
  CHECK(m.counters().heavy_sweeps == heavy);
  CHECK(m.counters().incremental_sweeps >= 1);
  CHECK(m.subnet_up());
  CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());

  for (uint8_t p = 1; p <= topo.node(lost).num_ports; ++p)
    if (topo.node(lost).port(p).connected()) REQUIRE(b.sim().set_link(PortRef{lost, p}, true).ok());
  REQUIRE(b.run_until_true([&] { return m.sa().snapshot()->fabric.find_by_node_guid(guid).has_value(); }, 3 * kSecond));
  b.run_for(kSecond);
  INFO(log.text);
  CHECK(m.counters().heavy_sweeps == heavy);
  CHECK(m.subnet_up());
  for (uint8_t p = 1; p <= topo.node(lost).num_ports; ++p) CHECK(b.sim().port_state(PortRef{lost, p}) == PortState::active);
  CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());
}

// Routes leaving the switch port at `end` in the tables the switches hold.
uint64_t held_routes_at(const SimFabric& sim, const SubnetSnapshot& s, PortRef end) {
  const routing::CheckSummary held = check_held(sim, top_of(s));
  for (const routing::PortRoutes& r : held.port_routes) {
    if (r.port == end) return r.routes;
  }
  return 0;
}

TEST_CASE("min-hop tables are mended after a cable pull and its return, and the cable carries routes again",
          "[manager][incremental][repair]") {
  // The same events with use_ucast_cache off route afresh: the mended
  // tables set no more LFT blocks than that.
  uint64_t pull_blocks[2] = {}, back_blocks[2] = {};
  for (const bool cache : {true, false}) {
    FailoverBench b(fat_tree());
    SmConfig config = b.config(1);
    config.sweep_interval = 10;
    config.use_ucast_cache = cache;
    REQUIRE(config.routing_engine == "minhop");
    SubnetManager& m = start_master(b, config);
    const PortRef cable = uplink(b.sim().topology(), "leaf-3");
    const Port& at = b.sim().topology().node(cable.node).port(cable.port);
    const PortRef far{at.remote_node, at.remote_port};
    const uint64_t before = held_routes_at(b.sim(), *m.subnet(), cable);
    REQUIRE(before > 0);

    REQUIRE(b.sim().set_link(cable, false).ok());
    REQUIRE(b.run_until_true([&] { return m.counters().incremental_sweeps == 1; }, 3 * kSecond));
    REQUIRE(m.last_sweep() != nullptr);
    const std::string pulled_check = m.last_sweep()->routes.check;
    INFO("pulled: " << pulled_check);
    CHECK((pulled_check.find("repaired") != std::string::npos) == cache);
    CHECK(m.last_sweep()->routes.check_ok);
    pull_blocks[cache ? 0 : 1] = m.last_sweep()->lft_blocks_sent;
    CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());

    REQUIRE(b.sim().set_link(cable, true).ok());
    REQUIRE(b.run_until_true([&] { return b.sim().port_state(cable) == PortState::active; }, 3 * kSecond));
    b.run_for(kSecond);
    CHECK(m.counters().heavy_sweeps == 1);
    back_blocks[cache ? 0 : 1] = m.last_sweep()->lft_blocks_sent;
    CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());
    // Both directions of the cable carry routes again.
    CHECK(held_routes_at(b.sim(), *m.subnet(), cable) > 0);
    CHECK(held_routes_at(b.sim(), *m.subnet(), far) > 0);
  }
  INFO("lft blocks mended/afresh: pull " << pull_blocks[0] << "/" << pull_blocks[1] << ", back " << back_blocks[0]
                                         << "/" << back_blocks[1]);
  CHECK(pull_blocks[0] > 0);
  CHECK(pull_blocks[0] <= pull_blocks[1]);
}

TEST_CASE("with incremental_sweeps off a trap 128 leads to a heavy sweep", "[manager][incremental]") {
  FailoverBench b(fat_tree());
  SmConfig config = b.config(1);
  config.sweep_interval = 10;
  config.incremental_sweeps = false;
  SubnetManager& m = start_master(b, config);
  const uint64_t heavy = m.counters().heavy_sweeps;
  REQUIRE(b.sim().set_link(uplink(b.sim().topology(), "leaf-3"), false).ok());
  REQUIRE(b.run_until_true([&] { return m.counters().heavy_sweeps == heavy + 1; }, 3 * kSecond));
  CHECK(m.counters().incremental_sweeps == 0);
  CHECK(check_held(b.sim(), top_of(*m.subnet())).all_delivered());
}

TEST_CASE("a missing node keeps its lids' routes until it is confirmed gone", "[manager][incremental][resilience]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2})));
  SmConfig config = b.config(1);
  config.sweep_interval = 10;
  config.missing_node_sweeps = 10;
  SubnetManager& m = start_master(b, config);
  // Hung: its SMA answers nothing, but it still forwards data with the table
  // it holds, so its hosts stay reachable if the other switches keep their routes.
  b.sim().set_unresponsive(*b.sim().topology().find_by_name("leaf-2"));
  m.request_heavy_sweep();
  const uint64_t before = m.counters().heavy_sweeps;
  REQUIRE(b.run_until_true([&] { return m.counters().heavy_sweeps > before; }, kSecond));
  CHECK_FALSE(m.subnet_up());
  const SweepReport* last = m.last_sweep();
  REQUIRE(last != nullptr);
  if (last == nullptr) return;  // the embedded build has no exceptions: REQUIRE does not leave
  CHECK(count_problems(last->problems, SweepProblemKind::missing) == 2);
  const auto check = check_held(b.sim(), top_of(*m.subnet()));
  INFO(fmt::format("{}", fmt::join(check.problems, "; ")));
  CHECK(check.all_delivered());
}

}  // namespace
}  // namespace ibsm::test
