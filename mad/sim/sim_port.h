// A client's attachment to the simulated fabric: the Transport an SM (or a
// diag tool, or an SA consumer) uses, at a CA's port or a switch's port 0.
// MADs it sends are routed through the fabric at once; what comes back waits
// in its inbox until the fabric's virtual clock reaches its arrival time.
//
// Several clients share one fabric and one virtual clock in one thread (the
// SMs of a failover test). A client that blocks (an SM's heavy sweep in
// run_until_idle()) moves the clock through wait(); the others must still
// answer what reaches them meanwhile, or the blocked one times out asking
// them. So each client may install a service callback, and whenever some
// client waits (or the harness calls SimFabric::step) the fabric first runs
// the services of the others that have MADs due: cooperative multitasking in
// virtual time. A service runs for arrivals only; timers (retries, an SM's
// periodic work) stay the owner's loop's business. A client can also be
// frozen (SIGSTOP: its MADs pile up unread) or killed (SimFabric::detach).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "mad/transport.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

class SimFabric;

class SimPort final : public Transport {
 public:
  SimPort(const SimPort&) = delete;
  SimPort& operator=(const SimPort&) = delete;

  // Fails with `unavailable` once the port is detached (its process died).
  Status send(const MadPacket& packet) override;
  // The earliest MAD whose arrival time has come.
  std::optional<MadPacket> receive() override;
  // First runs the services of the other clients that have MADs due (see
  // set_service). Then returns at once when a MAD has arrived for this
  // client; otherwise moves the fabric's clock to the next arrival (for any
  // client) or by `max_wait`, whichever comes first.
  void wait(Micros max_wait) override;
  LocalPortInfo local_port() const override;

  // The client runs an SM: PortInfo:CapabilityMask.IsSM is set on its port
  // (a real SM asks the kernel for this). A change sends trap 144 to the
  // port's master SM (see SimFabric). Ignored once detached.
  void set_is_sm(bool is_sm);

  // The client's "answer what has arrived" callback: it must read and handle
  // what is waiting without blocking (an SM installs its dispatcher's poll()
  // and its SA agent's). The fabric calls it when another client waits and
  // this one has a MAD due, never while this client is itself waiting or
  // already in its service further up the stack, never when frozen or
  // detached. It may send MADs. An empty function removes it.
  void set_service(std::function<void()> service) { service_ = std::move(service); }
  // Like SIGSTOP / SIGCONT: while frozen the fabric does not call the service;
  // MADs keep arriving in the inbox and are read late, once unfrozen.
  void set_frozen(bool frozen) { frozen_ = frozen; }
  bool frozen() const { return frozen_; }
  // False once SimFabric::detach() killed this client. The object stays
  // allocated (a dead SM's references stay valid) but is no part of the
  // fabric any more; a new client attaches at the same port with attach().
  bool attached() const { return attached_; }

  NodeIndex node() const { return NodeIndex{node_}; }
  uint8_t port_num() const { return port_; }
  // MADs waiting in the inbox, arrived or not.
  size_t pending() const { return inbox_.size(); }
  // When the earliest MAD in the inbox arrives (it may have already): a
  // harness that drives several clients moves the clock to it.
  std::optional<Micros> next_arrival() const { return next_due(); }

 private:
  friend class SimFabric;
  static constexpr size_t kKeptSlots = 1024;
  // The inbox is a min-heap of small entries (arrival time, then delivery
  // order) over packets parked in reused slots: a heap of whole packets
  // (some 280 bytes each) moved them on every push and pop, which cost the
  // bring-up's millions of MADs more than the rest of their way through the
  // fabric.
  struct Entry {
    Micros due = 0;
    uint64_t seq = 0;
    uint32_t slot = 0;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.due != b.due ? a.due > b.due : a.seq > b.seq; }
  };

  SimPort(SimFabric& fabric, uint32_t node, uint8_t port) : fabric_(fabric), node_(node), port_(port) {}
  std::optional<Micros> next_due() const;
  // A packet put in the inbox, arriving at `due`: the caller fills the slot.
  MadPacket& push_inbox(Micros due, uint64_t seq);
  void clear_inbox();

  SimFabric& fabric_;
  uint32_t node_;
  uint8_t port_;
  std::priority_queue<Entry, std::vector<Entry>, Later> inbox_;
  std::vector<MadPacket> parked_;       // by slot
  std::vector<uint32_t> free_parked_;   // slots not in the inbox
  std::function<void()> service_;
  bool frozen_ = false;
  bool attached_ = true;
  // On the stack: waiting in the fabric or running its service. Its code is
  // mid-call, so the fabric must not call its service again.
  bool busy_ = false;
};

}  // namespace ibsm
