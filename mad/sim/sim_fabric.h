// SimFabric: an in-process InfiniBand fabric that answers SMPs the way the
// SMAs of real switches and CAs do, and the way ibsim 0.10 does where ibsim is
// the reference, so an SM gives the same results on it and on ibsim for the
// same netfile. Built from a Fabric (the cabling); clients attach at ports and
// get a Transport (SimPort). Time is virtual: a ManualClock the fabric owns
// and moves only when a client waits (or step() or advance() is called), so
// runs are deterministic and need no real time.
//
// What it simulates:
//  - directed-route SMPs with the hop-pointer rules of IBA 14.2.2 (DrSLID and
//    DrDLID must be permissive: LID-routed DR parts are dropped, as in ibsim);
//  - LID-routed SMPs and GMPs through the switches' LFTs, with the port-state
//    rules of IBA 7.2 (SMPs pass Init/Armed/Active ports, data needs Active);
//  - the SMA of every node (see sma.h); SMInfo, traps and responses go to the
//    client attached at the destination port, GMPs too; nobody there: dropped;
//  - link state: Set PortInfo state and physical state, cable pulls and
//    replugs (set_link), PortStateChange, and trap 128 to the master SM;
//  - SM ports: CapabilityMask.IsSM while a client says it runs an SM, and
//    trap 144 to the master SM when that changes (as in ibsim, only from
//    ports whose mask says IsCapabilityMaskNoticeSupported: CA ports that are
//    cabled, never a switch's port 0);
//  - several clients in one thread and one virtual time (SMs failing over):
//    cooperative service of the others while one waits, freeze, kill
//    (detach) and restart (attach again), see sim_port.h;
//  - the PMA of every node (sim_pma.h): PortCounters and
//    PortCountersExtended Get and Set, with counters tests raise;
//  - M_Key (sma_m_key.h): the SMA's check of IBA 14.2.4 at protection
//    levels 0-3, M_KeyViolations, the lease timer in virtual time, and trap
//    256 to the port's MasterSMLID for every SMP it refuses;
//  - fault injection: drop rates with a seeded PRNG, dropped attributes,
//    unresponsive nodes;
//  - counters of everything received, answered, delivered and dropped.
#pragma once

#include <cstdint>
#include <memory>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/sim/sim_counters.h"
#include "mad/sim/sim_faults.h"
#include "mad/sim/sim_options.h"
#include "mad/sim/sim_pma.h"
#include "mad/sim/sim_port.h"
#include "mad/sim/sim_state.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

class SimFabric {
 public:
  explicit SimFabric(Fabric topology, SimOptions options = {}, LogSink& log = null_log_sink());
  ~SimFabric();
  SimFabric(const SimFabric&) = delete;
  SimFabric& operator=(const SimFabric&) = delete;

  // A client at a CA's or router's port (1..N) or at a switch's port 0. One
  // attached client per port; every SimPort lives as long as the fabric.
  SimPort& attach(NodeIndex node, uint8_t port);
  // The client's process died: the kernel clears its port's IsSM (as when an
  // SM closes its umad fd; trap 144 follows), its inbox is emptied, MADs for
  // the port are dropped from now on as with no client (no_client), its
  // service is never called again and its send() fails. The SimPort stays
  // allocated; attach() at the same port gives a restarted client a new one.
  void detach(SimPort& port);

  // The virtual clock, for the dispatcher (MadDispatcher takes a const Clock&).
  const Clock& clock() const { return clock_; }
  Micros now() const { return clock_.now(); }
  // Moves virtual time forward by `delta` (MADs falling due wait in inboxes).
  void advance(Micros delta) { clock_.advance(delta); }
  // The arrival time of the next MAD for any client.
  std::optional<Micros> next_delivery() const;
  // A harness's wait, when no client blocks (SMs driven by their poll()):
  // runs the service of every client that has a MAD due (see sim_port.h),
  // then moves the clock to the next arrival or by `max_wait`, whichever
  // comes first.
  void step(Micros max_wait);

  // Fault injection. set_link pulls (up = false) or replugs the cable at
  // `port`: both ends go Down/Polling, or come back Init/LinkUp. It fails for
  // a port that does not exist or has no cable.
  Status set_link(PortRef port, bool up);
  void set_drop_rate(NodeIndex node, double fraction, uint64_t seed);
  void set_drop_rate_all(double fraction, uint64_t seed);
  void set_drop_attribute(NodeIndex node, uint16_t attr_id, bool drop = true);
  void set_unresponsive(NodeIndex node, bool unresponsive = true);
  // Changes a port's LID behind the SM's back, as ibsim's Baselid does (a
  // switch's LID lives in its port 0). Fails for a port that does not exist
  // or a switch port other than 0.
  Status set_port_lid(PortRef port, Lid lid);
  void clear_faults() { faults_.clear(); }

  // The PMA's counters (sim_pma.h). add_port_errors raises one counter of
  // PortCounters (a wire::port_counters_fields field), saturating;
  // add_port_traffic the data and packet counters (data in 4-octet words).
  // Both fail for a port that does not exist.
  Status add_port_errors(PortRef port, const wire::Field& counter, uint64_t amount);
  Status add_port_traffic(PortRef port, uint64_t xmit_words, uint64_t rcv_words, uint64_t xmit_pkts,
                          uint64_t rcv_pkts);
  wire::PortCounters port_counters(PortRef port) const { return pma_.counters(state_, port.node.value, port.port); }
  wire::PortCountersExtended port_counters_extended(PortRef port) const {
    return pma_.extended(state_, port.node.value, port.port);
  }

  const SimCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = SimCounters{}; }

  // What the SMAs hold, for tests and tools.
  const Fabric& topology() const { return state_.topology(); }
  PortState port_state(PortRef p) const { return state_.port(p.node.value, p.port).state; }
  PhysState phys_state(PortRef p) const { return state_.port(p.node.value, p.port).phys_state; }
  Lid port_lid(PortRef p) const { return Lid{state_.port(p.node.value, p.port).lid}; }
  const sim::SimState& state() const { return state_; }

 private:
  friend class SimPort;
  struct Travel;

  Status send_from(SimPort& from, const MadPacket& packet);
  void wait_for(SimPort& client, Micros max_wait);
  void move_clock(Micros max_wait);
  // Runs the services of the clients other than `waiter` (none: all) that
  // have MADs due (sim_clients.cpp).
  void serve_others(const SimPort* waiter);
  void set_port_is_sm(uint32_t node, uint8_t port, bool is_sm);

  // The parts of send_from: where the MAD goes, what happens there.
  void route_smp(SimPort& from, Travel& t);
  void route_gmp(SimPort& from, Travel& t);
  void arrive_at_node(uint32_t node, uint8_t in_port, Travel& t);
  void answer_at_sma(uint32_t node, uint8_t in_port, Travel& t);
  void answer_at_pma(uint32_t node, uint8_t in_port, Travel& t);
  bool deliver(uint32_t node, uint8_t port, Travel& t, Micros latency);
  void drop(DropReason reason, const Travel& t);
  // Traps (sim_traps.cpp): 128 from the switches that owe one, 144 from a
  // port whose CapabilityMask changed; both LID-routed to a MasterSMLID.
  void send_traps();
  void send_trap144(uint32_t node, uint8_t port);
  // Trap 256 (Bad M_Key) for the SMP `t` that the M_Key check of the port
  // guarding (node, in_port) refused.
  void send_trap256(uint32_t node, uint8_t in_port, const Travel& t);
  // Sends SubnTrap(Notice) with `notice` (an SMP's 64 bytes of data) from
  // (node, port) to `dlid`, LID-routed, and counts it.
  void send_trap(uint32_t node, uint8_t port, uint16_t dlid, std::span<const uint8_t> notice);

  SimPort* client_at(uint32_t node, uint8_t port) const;

  sim::SimState state_;
  sim::SimFaults faults_;
  sim::SimPma pma_;
  ManualClock clock_;
  LogSink& log_;
  SimCounters counters_;
  std::vector<std::unique_ptr<SimPort>> clients_;          // attach order, detached ones too
  std::unordered_map<uint32_t, SimPort*> client_by_port_;  // attached ones, by port index
  // The last port client_at found a client at (its answers all go there in
  // a sweep): a compare instead of a hash lookup per MAD. Reset by attach
  // and detach.
  mutable uint32_t last_client_port_ = UINT32_MAX;
  mutable SimPort* last_client_ = nullptr;
  // Every arrival time scheduled, earliest first; times already passed are
  // popped as the clock moves. Waiting wakes at the next future one only: a
  // MAD that already arrived for a client that is not reading must not stop
  // the clock for the others.
  std::priority_queue<Micros, std::vector<Micros>, std::greater<>> wakeups_;
  uint64_t next_seq_ = 0;  // one per inbox entry: it also tells whether a service delivered anything
  uint64_t next_trap_tid_ = 1;
};

}  // namespace ibsm
