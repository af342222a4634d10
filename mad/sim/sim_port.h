// A client's attachment to the simulated fabric: the Transport an SM (or a
// diag tool, or an SA consumer) uses, at a CA's port or a switch's port 0.
// MADs it sends are routed through the fabric at once; what comes back waits
// in its inbox until the fabric's virtual clock reaches its arrival time.
#pragma once

#include <cstdint>
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

  Status send(const MadPacket& packet) override;
  // The earliest MAD whose arrival time has come.
  std::optional<MadPacket> receive() override;
  // Returns at once when a MAD has arrived; otherwise moves the fabric's
  // clock to the next arrival (for any client) or by `max_wait`, whichever
  // comes first.
  void wait(Micros max_wait) override;
  LocalPortInfo local_port() const override;

  // The client runs an SM: PortInfo:CapabilityMask.IsSM is set on its port
  // (a real SM asks the kernel for this).
  void set_is_sm(bool is_sm);

  NodeIndex node() const { return NodeIndex{node_}; }
  uint8_t port_num() const { return port_; }
  // MADs waiting in the inbox, arrived or not.
  size_t pending() const { return inbox_.size(); }

 private:
  friend class SimFabric;
  struct Delivery {
    Micros due = 0;
    uint64_t seq = 0;
    MadPacket packet;
  };
  struct Later {
    bool operator()(const Delivery& a, const Delivery& b) const {
      return a.due != b.due ? a.due > b.due : a.seq > b.seq;
    }
  };

  SimPort(SimFabric& fabric, uint32_t node, uint8_t port) : fabric_(fabric), node_(node), port_(port) {}
  std::optional<Micros> next_due() const;

  SimFabric& fabric_;
  uint32_t node_;
  uint8_t port_;
  std::priority_queue<Delivery, std::vector<Delivery>, Later> inbox_;
};

}  // namespace ibsm
