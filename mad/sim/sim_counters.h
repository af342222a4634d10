// What the simulated fabric did with the MADs it was given: counts that tests
// and benchmarks compare (two identical runs give equal counters).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

namespace ibsm {

// Why a MAD was dropped. Every drop is counted under exactly one reason.
enum class DropReason : uint8_t {
  malformed,             // unreadable: base version, DR hop count > 63, hop pointer not where it must be
  invalid_dr_path,       // DR path names port 0 or a port the node lacks, asks a CA to forward, or leaves a CA by another port
  dr_lid_routed_part,    // DrSLID/DrDLID not permissive: LID-routed DR parts are not simulated (as in ibsim)
  link_down,             // routed out of a port that is not cabled or whose link is not up
  port_state,            // the link is up but its state does not pass this traffic (data needs Active)
  no_route,              // LID 0, an LFT entry 0xFF or beyond LinearFDBTop, a CA that is not the destination
  hop_limit,             // a LID-routed MAD still travelling after 64 switches: an LFT loop
  no_client,             // SMInfo, a trap, a GMP or a response for a port no client is attached at
  unresponsive,          // fault injection: the node's SMA answers nothing and forwards no DR SMP
  injected,              // fault injection: drop rate or dropped attribute
  no_response_method,    // a request the SMA does not support and that has no response method (Send)
  stray_response,        // a response that reached an SMA (nobody asked)
  m_key,                 // refused by the SMA's M_Key check (IBA 14.2.4.1): trap 256 instead of an answer
  count_
};
inline constexpr size_t drop_reason_count = static_cast<size_t>(DropReason::count_);
const char* drop_reason_name(DropReason r);  // "link_down"

struct SimCounters {
  // Keys: DispatcherStats::kind_key(class, method, attribute), so the two
  // tables can be compared.
  static uint32_t kind_key(uint8_t mgmt_class, uint8_t method, uint16_t attr) {
    return (uint32_t{mgmt_class} << 24) | (uint32_t{method} << 16) | attr;
  }

  uint64_t mads_in = 0;         // MADs clients handed to the fabric
  uint64_t sma_requests = 0;    // requests that reached an SMA (and were not dropped there)
  uint64_t pma_requests = 0;    // PerfMgt requests a PMA answered (sim_pma.h)
  uint64_t responses_sent = 0;  // responses the SMAs and PMAs generated
  uint64_t delivered = 0;       // MADs delivered to clients (responses, forwarded requests, traps)
  uint64_t traps_sent = 0;      // traps the SMAs generated (128, 144, 256), delivered or not
  uint64_t send_timeouts = 0;   // requests handed back as timed out (report_send_timeouts)
  std::map<uint32_t, uint64_t> received_by_kind;      // every MAD clients handed in
  std::map<uint32_t, uint64_t> sma_requests_by_kind;  // the ones an SMA processed
  std::array<uint64_t, drop_reason_count> dropped{};

  uint64_t dropped_for(DropReason r) const { return dropped[static_cast<size_t>(r)]; }
  uint64_t dropped_total() const;
  uint64_t received(uint8_t mgmt_class, uint8_t method, uint16_t attr) const;
  bool operator==(const SimCounters&) const = default;
};

}  // namespace ibsm
