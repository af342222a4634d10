// The transport interface: moves whole 256-byte MADs in and out of one local
// port. It knows nothing of transaction IDs, retries, timeouts or windows:
// those belong to the MadDispatcher in the core. Two implementations:
// UmadTransport (libibumad: real HCAs, and ibsim through umad2sim) and
// SimFabric's attached ports (in-process, virtual time).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "mad/base/clock.h"
#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm {

inline constexpr size_t kMadSize = 256;

// Where a MAD goes to or came from. Directed-route SMPs carry their route in
// the MAD itself and are sent to the permissive LID on QP0.
struct MadAddress {
  Lid lid{Lid::permissive};
  uint32_t qp = 0;     // 0 for SMPs, 1 for GSI classes (SA, PerfMgt)
  uint32_t qkey = 0;   // 0x80010000 for QP1
  uint8_t sl = 0;
  uint16_t pkey_index = 0;
};

struct MadPacket {
  std::array<uint8_t, kMadSize> data{};
  MadAddress address;
  // Sending a request: how long the layer below should keep it open to match
  // its response (the kernel's MAD layer drops responses to requests it is not
  // waiting for). The dispatcher owns retries; 0 for responses and traps.
  uint32_t response_timeout_ms = 0;
  // Received: the layer below gave up waiting for a response to this request
  // (its own copy comes back). umad2sim never reports this.
  bool send_timed_out = false;
};

// What the local port is: the SM needs its own LID, GUID and port number.
struct LocalPortInfo {
  Guid node_guid;
  Guid port_guid;
  uint8_t port_num = 0;
  Lid lid;
  Lid sm_lid;
  PortState state = PortState::down;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Queues one MAD for sending; never blocks on the network.
  virtual Status send(const MadPacket& packet) = 0;
  // The next received MAD, if one is waiting; never blocks.
  virtual std::optional<MadPacket> receive() = 0;
  // Waits until a MAD may be waiting or `max_wait` microseconds have passed.
  // A real transport sleeps in poll(); the simulated fabric moves its virtual
  // clock instead, so the same dispatcher loop runs in either.
  virtual void wait(Micros max_wait) = 0;
  // The local port as the transport sees it now.
  virtual LocalPortInfo local_port() const = 0;
};

}  // namespace ibsm
