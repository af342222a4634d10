// Runs the SM's sweeps against a SimFabric, and reads back what the switches
// and ports then hold, for the sweep tests.
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/sim/sim_fabric.h"
#include "sm/fabric/netfile_reader.h"
#include "routing/route_check.h"
#include "sm/sweep/heavy_sweep.h"
#include "sm/sweep/light_sweep.h"
#include "sm/sweep/routing_step.h"

namespace ibsm::test {

inline Fabric must(Result<Fabric> f) {
  REQUIRE(f.ok());
  return std::move(*f);
}

// One switch "S1" with the hosts, then the routers, on its ports 1, 2, ...
// (one port each), named as given.
inline Fabric one_switch_fabric(const std::vector<std::string>& hosts, const std::vector<std::string>& routers = {}) {
  std::string text = "Switch 8 \"S1\"\n";
  uint8_t port = 0;
  for (const auto* list : {&hosts, &routers})
    for (const std::string& name : *list) text += fmt::format("[{}] \"{}\"[1]\n", ++port, name);
  port = 0;
  for (const std::string& name : hosts) text += fmt::format("\nHca 1 \"{}\"\n[1] \"S1\"[{}]\n", name, ++port);
  for (const std::string& name : routers) text += fmt::format("\nRt 1 \"{}\"\n[1] \"S1\"[{}]\n", name, ++port);
  std::istringstream in(text);
  return must(read_netfile(in, "one switch"));
}

// The cabled topology with the LIDs and states the SMAs of `sim` hold now.
inline Fabric held_fabric(const SimFabric& sim) {
  Fabric f = sim.topology();
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    Node& n = f.node(NodeIndex{i});
    for (uint8_t p = n.is_switch() ? 0 : 1; p <= n.num_ports; ++p) {
      const auto& rec = sim.state().port(i, p);
      if (p != 0) n.port(p).state = rec.state;
      if (n.is_switch() && p != 0) continue;  // switch ports 1..N carry no LID
      n.port(p).base_lid = Lid{rec.lid};
      n.port(p).lmc = rec.lmc;
    }
  }
  return f;
}

// What every switch's LFT in `sim` holds now, by NodeIndex, up to `top`.
inline std::vector<std::vector<uint8_t>> held_lfts(const SimFabric& sim, uint16_t top) {
  const Fabric& f = sim.topology();
  std::vector<std::vector<uint8_t>> lfts(f.node_count());
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    if (!f.node(NodeIndex{i}).is_switch()) continue;
    for (uint32_t lid = 0; lid <= top; ++lid) lfts[i].push_back(sim.state().lft_port(i, static_cast<uint16_t>(lid)));
  }
  return lfts;
}

// Every CA-to-CA pair (all LIDs) traced through what the switches of `sim` hold.
inline routing::CheckSummary check_held(const SimFabric& sim, uint16_t top) {
  return routing::check_all_pairs(held_fabric(sim), held_lfts(sim, top));
}

// The SM at the first CA's port 1 (or at `at`), min-hop unless told otherwise.
class SweepHarness {
 public:
  explicit SweepHarness(Fabric topology, SimOptions options = {}, std::optional<PortRef> at = std::nullopt)
      : sim_(std::move(topology), options) {
    PortRef where = at ? *at : first_ca_port(sim_.topology());
    SimPort& port = sim_.attach(where.node, where.port);
    port.set_is_sm(true);
    dispatcher_ = std::make_unique<MadDispatcher>(port, sim_.clock());
    config_.route = route_function("minhop");
  }

  static PortRef first_ca_port(const Fabric& f) {
    for (uint32_t i = 0; i < f.node_count(); ++i)
      if (!f.node(NodeIndex{i}).is_switch()) return PortRef{NodeIndex{i}, 1};
    FAIL("no ca to run the sm on");
    return {};
  }

  static RouteFunction route_function(const std::string& chain) {
    auto r = make_route_function(chain, null_log_sink());
    REQUIRE(r.ok());
    return std::move(*r);
  }

  SweepReport heavy() {
    auto r = heavy_sweep(*dispatcher_, sim_.clock(), state_, config_, null_log_sink());
    INFO((r.ok() ? std::string() : r.status().message()));
    REQUIRE(r.ok());
    return std::move(*r);
  }
  LightSweepResult light(const SweepReport& last) {
    REQUIRE(last.subnet);
    return light_sweep(*dispatcher_, *last.subnet, null_log_sink());
  }

  std::vector<std::vector<uint8_t>> held_lfts(uint16_t top) const { return test::held_lfts(sim_, top); }
  Fabric as_held() const { return held_fabric(sim_); }
  routing::CheckSummary check_held(uint16_t top) const { return test::check_held(sim_, top); }

  SimFabric& sim() { return sim_; }
  SweepState& state() { return state_; }
  SweepConfig& config() { return config_; }
  MadDispatcher& dispatcher() { return *dispatcher_; }

 private:
  SimFabric sim_;
  std::unique_ptr<MadDispatcher> dispatcher_;
  SweepState state_;
  SweepConfig config_;
};

}  // namespace ibsm::test
