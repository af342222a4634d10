#include "mad/sim/sma_m_key.h"

#include "mad/wire/constants.h"

namespace ibsm::sim {

namespace {
constexpr Micros kSecond = 1'000'000;
}

uint8_t m_key_port(const SimState& s, uint32_t node, uint8_t in_port) {
  return s.node(node).is_switch() ? uint8_t{0} : in_port;
}

MKeyVerdict check_m_key(SimState& s, uint32_t node, uint8_t in_port, uint8_t method, uint64_t m_key, Micros now) {
  const uint8_t guard = m_key_port(s, node, in_port);
  PortRecord& p = s.port(node, guard);
  // The lease ran out: protection falls back to level 0 (IBA 14.2.4.2).
  std::optional<Micros> lease_end = s.m_key_lease_end(node, guard);
  if (lease_end && now >= *lease_end) {
    p.m_key_protect_bits = 0;
    s.set_m_key_lease_end(node, guard, std::nullopt);
    lease_end.reset();
  }
  const bool key_ok = p.m_key == 0 || p.m_key == m_key;
  const bool get = method == wire::method::get;
  if (key_ok) {
    if (lease_end) s.set_m_key_lease_end(node, guard, std::nullopt);  // the SM is there: the lease holds
    return MKeyVerdict::pass;
  }
  if (get && p.m_key_protect_bits == 0) return MKeyVerdict::pass;
  if (get && p.m_key_protect_bits == 1) return MKeyVerdict::pass_hidden;
  if (p.m_key_violations != UINT16_MAX) ++p.m_key_violations;
  // A lease period of 0 never expires.
  if (!lease_end && p.m_key_lease_period != 0)
    s.set_m_key_lease_end(node, guard, now + Micros{p.m_key_lease_period} * kSecond);
  return MKeyVerdict::refuse;
}

}  // namespace ibsm::sim
