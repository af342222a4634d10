#include "sm/sweep/lid_space.h"

#include <algorithm>
#include <bit>

namespace ibsm {

LidSpace::LidSpace(uint16_t first, uint16_t last)
    : first_(first), last_(last), owner_(size_t{Lid::max_unicast} + 1, kNoOwner),
      reserved_(size_t{Lid::max_unicast} + 1, 0) {
  assert(first >= 1 && first <= last && last <= Lid::max_unicast);
}

bool LidSpace::unowned(uint16_t base, uint32_t count) const {
  assert(in_range(base, count));
  for (uint32_t lid = base; lid < base + count; ++lid) {
    if (owner_[lid] != kNoOwner) return false;
  }
  return true;
}

std::optional<uint16_t> LidSpace::reserved_for_other(uint16_t base, uint32_t count, Guid guid) const {
  assert(in_range(base, count));
  for (uint32_t lid = base; lid < base + count; ++lid) {
    if (reserved_[lid] != 0 && reserved_[lid] != guid.value) return static_cast<uint16_t>(lid);
  }
  return std::nullopt;
}

void LidSpace::take(uint16_t base, uint32_t count, uint32_t port) {
  assert(in_range(base, count) && unowned(base, count));
  for (uint32_t lid = base; lid < base + count; ++lid) owner_[lid] = port;
}

void LidSpace::reserve(uint16_t base, uint32_t count, Guid guid) {
  assert(in_range(base, count));
  for (uint32_t lid = base; lid < base + count; ++lid) reserved_[lid] = guid.value;
}

void LidSpace::release(uint16_t base, uint32_t count, Guid guid) {
  assert(in_range(base, count));
  for (uint32_t lid = base; lid < base + count; ++lid) {
    if (reserved_[lid] == guid.value) reserved_[lid] = 0;
  }
}

std::optional<uint16_t> LidSpace::lowest_free_block(uint32_t count) {
  assert(std::has_single_bit(count) && count <= 128);
  uint32_t& cursor = cursor_[std::countr_zero(count)];
  // The first multiple of `count` at or above both the cursor and `first`.
  uint32_t base = std::max<uint32_t>(cursor, first_);
  base = (base + count - 1) / count * count;
  for (; base + count - 1 <= last_; base += count) {
    bool free = true;
    for (uint32_t lid = base; lid < base + count && free; ++lid) {
      free = owner_[lid] == kNoOwner && reserved_[lid] == 0;
    }
    if (free) {
      cursor = base;
      return static_cast<uint16_t>(base);
    }
  }
  cursor = base;
  return std::nullopt;
}

}  // namespace ibsm
