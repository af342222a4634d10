// An SM over SimFabric for the multicast tests: heavy sweeps, multicast
// updates, and what the switches' MFTs hold, read straight from the SMAs.
#pragma once

#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/sim/sim_fabric.h"
#include "routing/multicast_check.h"
#include "sm/multicast/multicast_service.h"
#include "sm/multicast/multicast_update.h"
#include "sm/sweep/heavy_sweep.h"
#include "sm/sweep/routing_step.h"
#include "tests/sm/multicast/held_mfts.h"

namespace ibsm::test {

template <typename T>
T must(Result<T> r) {
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  return std::move(*r);
}

class MulticastHarness {
 public:
  explicit MulticastHarness(Fabric topology, std::string engine = "minhop", DispatcherOptions options = {},
                            SimOptions sim = {})
      : sim_(std::move(topology), sim) {
    PortRef at{};
    for (uint32_t i = 0; i < sim_.topology().node_count(); ++i) {
      if (!sim_.topology().node(NodeIndex{i}).is_switch()) {
        at = PortRef{NodeIndex{i}, 1};
        break;
      }
    }
    SimPort& port = sim_.attach(at.node, at.port);
    port.set_is_sm(true);
    dispatcher_ = std::make_unique<MadDispatcher>(port, sim_.clock(), options);
    auto route = make_route_function(engine, null_log_sink());
    REQUIRE(route.ok());
    config_.route = std::move(*route);
  }

  // A heavy sweep, then a new forwarding state with every group, programmed.
  MulticastUpdate heavy(std::span<const MulticastGroupMembers> groups, MftProgramOptions options = {}) {
    auto r = heavy_sweep(*dispatcher_, sim_.clock(), state_, config_, null_log_sink());
    INFO((r.ok() ? std::string() : r.status().message()));
    REQUIRE(r.ok());
    REQUIRE(r->subnet);
    // The groups' ports, named by the previous snapshot, by GUID in the new
    // one (discovery order changes with the cabling).
    groups_ = subnet_ ? rebase(groups, subnet_->fabric, r->subnet->fabric)
                      : std::vector<MulticastGroupMembers>(groups.begin(), groups.end());
    subnet_ = r->subnet;
    if (!options.at_barrier && !options.after_block) {
      forwarding_.reset();
      return must(service_.after_heavy_sweep(*dispatcher_, state_, *r, groups_, null_log_sink()));
    }
    // Watched: the same steps as MulticastService, with the test's options.
    forwarding_ = std::make_unique<MulticastForwarding>(must(MulticastForwarding::create(subnet_, r->routes.engine_used)));
    auto u = must(update_multicast(*dispatcher_, state_, *forwarding_, groups_, true, null_log_sink(), std::move(options)));
    tables_ = forwarding_->tables();
    return u;
  }
  // The groups of the last heavy(), in the current snapshot's NodeIndex.
  const std::vector<MulticastGroupMembers>& groups() const { return groups_; }

  static std::vector<MulticastGroupMembers> rebase(std::span<const MulticastGroupMembers> groups, const Fabric& from,
                                                   const Fabric& to) {
    std::vector<MulticastGroupMembers> out;
    for (const MulticastGroupMembers& g : groups) {
      MulticastGroupMembers r{g.mlid, {}};
      for (const PortRef& m : g.members) {
        const Guid guid = from.node(m.node).node_guid;
        if (m.node.value < to.node_count() && to.node(m.node).node_guid == guid) {
          r.members.push_back(m);  // same place (also a node without a GUID, like mixed.net's router)
        } else if (auto n = to.find_by_node_guid(guid)) {
          r.members.push_back(PortRef{*n, m.port});
        }
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  // Every cabled CA port of the current snapshot.
  std::vector<PortRef> hosts() const {
    std::vector<PortRef> hosts;
    const Fabric& f = subnet_->fabric;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& n = f.node(NodeIndex{i});
      if (n.is_switch()) continue;
      for (uint8_t p = 1; p <= n.num_ports; ++p)
        if (n.port(p).connected()) hosts.push_back(PortRef{NodeIndex{i}, p});
    }
    return hosts;
  }
  // Joins and leaves: only the changed groups.
  MulticastUpdate change(std::span<const MulticastGroupMembers> groups) {
    return must(service_.after_membership_change(*dispatcher_, state_, groups, null_log_sink()));
  }
  // What the SM computed last (the service's published tables, or the watched run's).
  const MulticastTables& computed() const { return forwarding_ ? tables_ : *service_.tables(); }

  // What every switch's MFT holds now, by the snapshot's NodeIndex.
  MulticastTables held() const {
    REQUIRE(subnet_);
    return held_mfts(sim_, subnet_->fabric);
  }

  // Random groups of CA ports of the current snapshot, `count` MLIDs from 0xC000.
  std::vector<MulticastGroupMembers> random_groups(size_t count, size_t max_members, uint32_t seed) const {
    std::vector<PortRef> hosts = this->hosts();
    std::mt19937 prng(seed);
    std::vector<MulticastGroupMembers> groups;
    for (size_t g = 0; g < count; ++g) {
      std::shuffle(hosts.begin(), hosts.end(), prng);
      const size_t n = 2 + prng() % std::max<size_t>(1, std::min(max_members, hosts.size()) - 1);
      groups.push_back({Lid{static_cast<uint16_t>(0xC000 + g)}, {hosts.begin(), hosts.begin() + static_cast<std::ptrdiff_t>(std::min(n, hosts.size()))}});
    }
    return groups;
  }

  routing::MulticastCheck check_held(std::span<const MulticastGroupMembers> groups) const {
    return routing::check_multicast(subnet_->fabric, held(), groups);
  }

  SimFabric& sim() { return sim_; }
  SweepState& state() { return state_; }
  const SubnetSnapshot& subnet() const { return *subnet_; }
  MadDispatcher& dispatcher() { return *dispatcher_; }
  SweepConfig& config() { return config_; }

 private:
  SimFabric sim_;
  std::unique_ptr<MadDispatcher> dispatcher_;
  SweepState state_;
  SweepConfig config_;
  std::shared_ptr<const SubnetSnapshot> subnet_;
  MulticastService service_;
  std::unique_ptr<MulticastForwarding> forwarding_;  // a watched heavy(), beside the service
  MulticastTables tables_;
  std::vector<MulticastGroupMembers> groups_;
};

}  // namespace ibsm::test
