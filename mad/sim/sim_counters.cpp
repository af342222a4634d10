#include "mad/sim/sim_counters.h"

namespace ibsm {

const char* drop_reason_name(DropReason r) {
  switch (r) {
    case DropReason::malformed: return "malformed";
    case DropReason::invalid_dr_path: return "invalid_dr_path";
    case DropReason::dr_lid_routed_part: return "dr_lid_routed_part";
    case DropReason::link_down: return "link_down";
    case DropReason::port_state: return "port_state";
    case DropReason::no_route: return "no_route";
    case DropReason::hop_limit: return "hop_limit";
    case DropReason::no_client: return "no_client";
    case DropReason::unresponsive: return "unresponsive";
    case DropReason::injected: return "injected";
    case DropReason::no_response_method: return "no_response_method";
    case DropReason::stray_response: return "stray_response";
    case DropReason::m_key: return "m_key";
    case DropReason::count_: break;
  }
  return "?";
}

uint64_t SimCounters::dropped_total() const {
  uint64_t total = 0;
  for (uint64_t n : dropped) total += n;
  return total;
}

uint64_t SimCounters::received(uint8_t mgmt_class, uint8_t method, uint16_t attr) const {
  auto it = received_by_kind.find(kind_key(mgmt_class, method, attr));
  return it == received_by_kind.end() ? 0 : it->second;
}

}  // namespace ibsm
