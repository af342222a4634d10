// One daemon's manager, wired as `ibsm run` wires it (DaemonManager), on the
// first CA of a small leaf-spine SimFabric in virtual time, with its log in
// memory: for the daemon library's tests.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/sim/sim_fabric.h"
#include "sm/topogen/generators.h"
#include "tools/daemon/daemon_manager.h"
#include "tests/virtual_second.h"

namespace ibsm::test {

// The lines a FilteringLogSink lets through, with their levels.
class LinesLog final : public FilteringLogSink {
 public:
  explicit LinesLog(LogLevel level = LogLevel::info) : FilteringLogSink(level) {}
  void write(LogLevel level, Subsystem, std::string_view message) override {
    lines.emplace_back(message);
    levels.push_back(level);
  }
  // Lines at `level` that contain `part`.
  size_t count(LogLevel level, std::string_view part) const {
    size_t n = 0;
    for (size_t i = 0; i < lines.size(); ++i) n += levels[i] == level && lines[i].find(part) != std::string::npos;
    return n;
  }
  bool has(std::string_view line) const {
    for (const auto& l : lines)
      if (l == line) return true;
    return false;
  }
  void clear() {
    lines.clear();
    levels.clear();
  }
  std::vector<std::string> lines;
  std::vector<LogLevel> levels;
};

inline Fabric bench_fabric() {
  auto f = topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 3});
  REQUIRE(f.ok());
  return std::move(*f);
}

// A config for the bench: no cache, dumps or socket unless a test sets them.
inline SmConfig bench_config() {
  SmConfig c;
  c.cache_dir.clear();
  c.partition_config_file.clear();
  c.control_socket.clear();
  c.sweep_interval = 1;
  return c;
}

struct DaemonBench {
  SimFabric sim{bench_fabric()};
  SimPort* port = nullptr;
  LinesLog log;
  std::unique_ptr<DaemonManager> daemon;

  explicit DaemonBench(const SmConfig& config = bench_config(), DaemonWiring wiring = {}, RunInputs inputs = {},
                       SweepState state = {}) {
    for (uint32_t i = 0; i < sim.topology().node_count() && !port; ++i)
      if (!sim.topology().node(NodeIndex{i}).is_switch()) port = &sim.attach(NodeIndex{i}, 1);
    REQUIRE(port);
    port->set_is_sm(true);
    auto d = DaemonManager::create(*port, sim.clock(), config, std::move(inputs), std::move(state), log,
                                   std::move(wiring));
    REQUIRE(d.ok());
    daemon = std::move(*d);
    SubnetManager* raw = &daemon->manager();
    port->set_service([raw] { raw->serve_arrivals(); });
  }
  SubnetManager& manager() { return daemon->manager(); }

  // Polls the manager for `duration` of virtual time, the clock moved to
  // its next deadline or arrival.
  void run_for(Micros duration) {
    const Micros end = sim.now() + duration;
    while (sim.now() < end) {
      manager().poll(sim.now());
      Micros next = std::min(end, manager().next_deadline());
      if (auto due = port->next_arrival(); due && *due > sim.now()) next = std::min(next, *due);
      sim.step(std::max<Micros>(next - sim.now(), 1));
    }
  }
  // Runs until the subnet is up (3 virtual seconds at most).
  void bring_up() {
    run_for(3 * kSecond);
    REQUIRE(manager().is_master());
    REQUIRE(manager().subnet_up());
  }
};

}  // namespace ibsm::test
