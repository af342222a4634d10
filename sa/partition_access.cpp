#include "sa/partition_access.h"

#include <span>
#include <vector>

namespace ibsm::sa {
namespace {

std::span<const uint16_t> pkeys_of(const SaSnapshot& s, const EndPort& e) {
  const uint32_t n = e.ref.node.value;
  if (n >= s.p_keys.size() || e.ref.port >= s.p_keys[n].size()) return {};
  return s.p_keys[n][e.ref.port];
}

}  // namespace

const EndPort* port_by_gid(const SaSnapshot& s, const wire::Gid& gid, GidPrefix prefix) {
  constexpr uint64_t kLinkLocal = 0xFE80000000000000ULL;  // fe80::/10
  constexpr uint64_t kLinkLocalMask = 0xFFC0000000000000ULL;
  const bool on_subnet = gid.prefix() == s.subnet_prefix || (gid.prefix() & kLinkLocalMask) == kLinkLocal;
  if (prefix == GidPrefix::subnet_or_link_local && !on_subnet) return nullptr;
  return s.by_port_guid(Guid{gid.interface_id()});
}

bool port_has_pkey(const SaSnapshot& s, const EndPort& e, uint16_t pkey) {
  const uint16_t partition = pkey & wire::p_key_base_mask;
  if (partition == 0) return false;
  for (uint16_t k : pkeys_of(s, e))
    if ((k & wire::p_key_base_mask) == partition) return true;
  return false;
}

bool ports_share_pkey(const SaSnapshot& s, const EndPort& a, const EndPort& b) {
  const auto ka = pkeys_of(s, a);
  const auto kb = pkeys_of(s, b);
  for (uint16_t x : ka) {
    if ((x & wire::p_key_base_mask) == 0) continue;
    for (uint16_t y : kb)
      if ((x & wire::p_key_base_mask) == (y & wire::p_key_base_mask) && ((x | y) & wire::p_key_full_member_bit) != 0)
        return true;
  }
  return false;
}

bool ports_share_this_pkey(const SaSnapshot& s, const EndPort& a, const EndPort& b, uint16_t pkey) {
  const uint16_t partition = pkey & wire::p_key_base_mask;
  if (partition == 0) return false;
  bool in_a = false, in_b = false, full = false;
  for (uint16_t k : pkeys_of(s, a))
    if ((k & wire::p_key_base_mask) == partition) {
      in_a = true;
      full = full || (k & wire::p_key_full_member_bit) != 0;
    }
  for (uint16_t k : pkeys_of(s, b))
    if ((k & wire::p_key_base_mask) == partition) {
      in_b = true;
      full = full || (k & wire::p_key_full_member_bit) != 0;
    }
  return in_a && in_b && full;
}

std::optional<uint16_t> shared_pkey(const SaSnapshot& s, const EndPort& a, const EndPort& b) {
  return shared_pkey_in(s, a, b, 1, wire::p_key_base_mask);
}

std::optional<uint16_t> shared_pkey_in(const SaSnapshot& s, const EndPort& a, const EndPort& b, uint16_t lo,
                                       uint16_t hi) {
  std::optional<uint16_t> best;
  for (uint16_t x : pkeys_of(s, a)) {
    const uint16_t partition = x & wire::p_key_base_mask;
    if (partition == 0 || partition < lo || partition > hi ||
        (best && partition >= (*best & wire::p_key_base_mask)))
      continue;
    for (uint16_t y : pkeys_of(s, b))
      if ((y & wire::p_key_base_mask) == partition && ((x | y) & wire::p_key_full_member_bit) != 0) {
        best = x;
        break;
      }
  }
  return best;
}

}  // namespace ibsm::sa
