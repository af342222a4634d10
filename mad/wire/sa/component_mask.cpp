#include "mad/wire/sa/component_mask.h"

#include <algorithm>
#include <cassert>

namespace ibsm::wire {

namespace {

// Compares one component's bits: whole bytes at once where it is byte
// aligned, else in chunks of up to 64 bits.
bool same_bits(std::span<const uint8_t> a, std::span<const uint8_t> b, const Field& f) {
  assert(field_fits(a.size(), f) && field_fits(b.size(), f));
  if (f.byte_aligned()) {
    const auto off = static_cast<std::ptrdiff_t>(f.byte_offset());
    return std::equal(a.begin() + off, a.begin() + off + static_cast<std::ptrdiff_t>(f.byte_size()), b.begin() + off);
  }
  for (size_t bit = f.bit_offset; bit < f.end_bit(); bit += 64) {
    const Field chunk{static_cast<uint16_t>(bit), static_cast<uint16_t>(std::min<size_t>(64, f.end_bit() - bit)), f.name};
    if (get_field(a, chunk) != get_field(b, chunk)) return false;
  }
  return true;
}

}  // namespace

const Component* first_masked_difference(std::span<const uint8_t> a, std::span<const uint8_t> b, uint64_t mask,
                                         std::span<const Component> components) {
  for (const Component& c : components) {
    if ((mask >> c.bit & 1) == 0) continue;
    if (!same_bits(a, b, c.field)) return &c;
  }
  return nullptr;
}

bool masked_fields_equal(std::span<const uint8_t> a, std::span<const uint8_t> b, uint64_t mask,
                         std::span<const Component> components) {
  return first_masked_difference(a, b, mask, components) == nullptr;
}

}  // namespace ibsm::wire
