// The Performance Management Agent of every simulated node (IBA 16.1): it
// answers PerfMgt Get and Set of ClassPortInfo, PortCounters and
// PortCountersExtended, and keeps per port the counters a test raises (the
// fabric models no data traffic of its own). PortCounters saturate at their
// width's maximum, as the spec requires, until a Set clears them;
// PortCountersExtended's 64-bit data counters count on.
//
// PortSelect names a port of the node (a switch's 0..N, a CA's 1..N), or is
// 0xFF for all ports (AllPortSelect, advertised in ClassPortInfo): a Get then
// sums them and a Set clears them all.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>

#include "mad/wire/perf_counters.h"
#include "mad/sim/sim_state.h"

namespace ibsm::sim {

// The CapabilityMask the simulated PMA advertises.
inline constexpr uint16_t pma_capability_mask = wire::perf_cap::all_port_select | wire::perf_cap::extended_width;

class SimPma {
 public:
  // Answers one PerfMgt request for `node`: writes the response's attribute
  // data and returns the MAD status.
  uint16_t process(const SimState& state, uint32_t node, uint8_t method, uint16_t attr_id,
                   std::span<const uint8_t> request_data, std::span<uint8_t> response_data);

  // Test hooks. Raise one of PortCounters' counters (a field of
  // wire::port_counters_fields) by `amount`, saturating.
  void add(const SimState& state, uint32_t node, uint8_t port, const wire::Field& counter, uint64_t amount);
  // Traffic: both the 32-bit PortCounters (saturating) and the 64-bit
  // PortCountersExtended data counters go up. Data counts 4-octet words.
  void add_traffic(const SimState& state, uint32_t node, uint8_t port, uint64_t xmit_words, uint64_t rcv_words,
                   uint64_t xmit_pkts, uint64_t rcv_pkts);
  // What the port's PMA holds now.
  wire::PortCounters counters(const SimState& state, uint32_t node, uint8_t port) const;
  wire::PortCountersExtended extended(const SimState& state, uint32_t node, uint8_t port) const;

 private:
  struct PortPma {
    std::array<uint8_t, wire::port_counters_size> basic{};  // PortCounters as on the wire
    wire::PortCountersExtended extended;
  };
  PortPma& at(const SimState& state, uint32_t node, uint8_t port) { return ports_[state.port_index(node, port)]; }
  const PortPma* find(const SimState& state, uint32_t node, uint8_t port) const;
  uint16_t port_counters(const SimState& state, uint32_t node, uint8_t method, std::span<const uint8_t> request,
                         std::span<uint8_t> response);
  uint16_t port_counters_extended(const SimState& state, uint32_t node, uint8_t method,
                                  std::span<const uint8_t> request, std::span<uint8_t> response);

  // Only ports whose counters were ever raised or set have an entry.
  std::unordered_map<uint32_t, PortPma> ports_;
};

}  // namespace ibsm::sim
