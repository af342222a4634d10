// Several SubnetManagers on one SimFabric in one virtual time, for the
// failover tests: each SM on its own CA port, polled in turn, with the clock
// moved to the earliest deadline or arrival. SMs can be killed (their
// process dies: SimFabric::detach), frozen (SIGSTOP: not polled, not
// served), cut off (their cable pulled) and restarted, all deterministically.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/sim/sim_fabric.h"
#include "sm/manager/subnet_manager.h"
#include "sm/topogen/generators.h"
#include "tests/virtual_second.h"

namespace ibsm::test {

inline Fabric must_fabric(Result<Fabric> f) {
  REQUIRE(f.ok());
  return std::move(*f);
}

// The CA ports of a fabric in node order: where the SMs go.
inline std::vector<PortRef> ca_ports(const Fabric& f) {
  std::vector<PortRef> out;
  for (uint32_t i = 0; i < f.node_count(); ++i)
    if (!f.node(NodeIndex{i}).is_switch()) out.push_back(PortRef{NodeIndex{i}, 1});
  return out;
}

class FailoverBench {
 public:
  struct Sm {
    PortRef where;
    SimPort* port = nullptr;
    std::unique_ptr<SubnetManager> manager;
    bool frozen = false;
    // Virtual time of each state this SM entered, in order.
    std::vector<std::pair<Micros, SmState>> states;
    bool alive() const { return manager != nullptr; }
  };

  explicit FailoverBench(Fabric topology) : sim_(std::move(topology)) {}

  SmConfig config(uint8_t priority) const {
    SmConfig c;
    c.sm_priority = priority;
    c.sweep_interval = 1;  // light sweeps every second: changes found fast in virtual time
    c.cache_dir.clear();
    return c;
  }

  // Starts an SM at `where`; returns its index (also for a restart there).
  size_t start(PortRef where, const SmConfig& config) {
    size_t i = sms_.size();
    for (size_t k = 0; k < sms_.size(); ++k)
      if (sms_[k].where == where && !sms_[k].alive()) i = k;
    if (i == sms_.size()) sms_.emplace_back();
    Sm& sm = sms_[i];
    sm.where = where;
    sm.frozen = false;
    sm.port = &sim_.attach(where.node, where.port);
    sm.port->set_is_sm(true);
    auto m = SubnetManager::create(*sm.port, sim_.clock(), config, {}, SweepState{}, *log_);
    REQUIRE(m.ok());
    sm.manager = std::move(*m);
    SubnetManager* raw = sm.manager.get();
    sm.port->set_service([raw] { raw->serve_arrivals(); });
    sm.manager->set_state_listener([this, i](SmState, SmState to) { sms_[i].states.emplace_back(sim_.now(), to); });
    return i;
  }
  size_t start(PortRef where, uint8_t priority) { return start(where, config(priority)); }

  // The SM's process dies: its port stops being an SM and answers nothing.
  void kill(size_t i) {
    sim_.detach(*sms_[i].port);
    sms_[i].manager.reset();
  }
  void freeze(size_t i, bool frozen = true) {
    sms_[i].frozen = frozen;
    sms_[i].port->set_frozen(frozen);
  }
  // Pulls or replugs the cable at the SM's port.
  void cut(size_t i, bool cut = true) { REQUIRE(sim_.set_link(sms_[i].where, !cut).ok()); }

  // Runs every live, unfrozen SM for `duration` of virtual time.
  void run_for(Micros duration) { run_until(sim_.now() + duration); }
  void run_until(Micros end) {
    while (sim_.now() < end) {
      for (Sm& sm : sms_)
        if (sm.alive() && !sm.frozen) sm.manager->poll(sim_.now());
      Micros next = end;
      for (const Sm& sm : sms_)
        if (sm.alive() && !sm.frozen) next = std::min(next, sm.manager->next_deadline());
      for (const Sm& sm : sms_)
        if (sm.alive() && !sm.frozen)
          if (auto due = sm.port->next_arrival(); due && *due > sim_.now()) next = std::min(next, *due);
      sim_.step(std::max<Micros>(next - sim_.now(), 1));
    }
  }
  // Runs until `pred` holds (checked after every round) or `limit` passes.
  template <typename Pred>
  bool run_until_true(Pred pred, Micros limit) {
    const Micros end = sim_.now() + limit;
    while (sim_.now() < end) {
      run_for(10'000);
      if (pred()) return true;
    }
    return pred();
  }

  SimFabric& sim() { return sim_; }
  // Where the SMs started from now on log (none by default).
  void set_log(LogSink& log) { log_ = &log; }
  Sm& sm(size_t i) { return sms_[i]; }
  SubnetManager& manager(size_t i) { return *sms_[i].manager; }
  size_t size() const { return sms_.size(); }

  // How many live SMs say they are MASTER.
  size_t masters() const {
    size_t n = 0;
    for (const Sm& sm : sms_)
      if (sm.alive() && sm.manager->is_master()) ++n;
    return n;
  }
  std::optional<size_t> master() const {
    for (size_t i = 0; i < sms_.size(); ++i)
      if (sms_[i].alive() && sms_[i].manager->is_master()) return i;
    return std::nullopt;
  }
  // When SM i last entered `state` (nullopt: never).
  std::optional<Micros> entered(size_t i, SmState state) const {
    std::optional<Micros> t;
    for (const auto& [when, s] : sms_[i].states)
      if (s == state) t = when;
    return t;
  }

  // Every LID-owning port's LID as the fabric holds it (switch port 0, CA ports).
  std::vector<uint16_t> lids() const {
    std::vector<uint16_t> out;
    const Fabric& f = sim_.topology();
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& n = f.node(NodeIndex{i});
      if (n.is_switch()) {
        out.push_back(sim_.port_lid(PortRef{NodeIndex{i}, 0}).value);
      } else {
        for (uint8_t p = 1; p <= n.num_ports; ++p) out.push_back(sim_.port_lid(PortRef{NodeIndex{i}, p}).value);
      }
    }
    return out;
  }

 private:
  SimFabric sim_;
  std::vector<Sm> sms_;
  LogSink* log_ = &null_log_sink();
};

// The manager tests' usual fabric: 2 leaves, 2 spines, 3 hosts a leaf.
inline Fabric small_fabric() { return must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 3})); }

inline Guid port_guid(const Fabric& f, PortRef p) { return f.node(p.node).port(p.port).guid; }

// Two SMs at the first two CAs, `first` priority on CA 0 and `second` on CA 1,
// run until one is master and the other follows it.
struct Pair {
  FailoverBench b{small_fabric()};
  std::vector<PortRef> cas = ca_ports(b.sim().topology());
  size_t a = 0, c = 0;
  Pair(uint8_t first, uint8_t second) {
    a = b.start(cas[0], first);
    c = b.start(cas[1], second);
    b.run_for(3'000'000);
    REQUIRE(b.masters() == 1);
  }
};

// One SM at the first CA of `topology` with `config`, run until it is the
// master of a subnet that is up.
inline SubnetManager& start_master(FailoverBench& b, const SmConfig& config) {
  const size_t i = b.start(ca_ports(b.sim().topology())[0], config);
  REQUIRE(b.run_until_true([&] { return b.masters() == 1 && b.manager(i).subnet_up(); }, 3'000'000));
  return b.manager(i);
}

}  // namespace ibsm::test
