// Random values for the wire-format tests: structs filled field by field
// through their field tables, each value limited to its field's width, so a
// round trip must give back exactly what went in.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "mad/wire/field_codec.h"

namespace ibsm::wire::testing {

inline uint64_t width_mask(unsigned width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

inline uint64_t random_bits(std::mt19937_64& rng, unsigned width) { return rng() & width_mask(width); }

inline std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

template <typename M>
void fill_random(std::mt19937_64& rng, const Field& f, M& m) {
  if constexpr (std::is_same_v<M, Gid>) {
    for (auto& b : m.raw) b = static_cast<uint8_t>(rng());
  } else if constexpr (detail::is_byte_array<M>::value) {
    for (auto& b : m) b = static_cast<uint8_t>(rng());
  } else if constexpr (std::is_same_v<M, bool>) {
    m = (rng() & 1) != 0;
  } else if constexpr (std::is_enum_v<M>) {
    m = static_cast<M>(static_cast<std::underlying_type_t<M>>(random_bits(rng, f.bit_width)));
  } else if constexpr (detail::strong_value<M>) {
    m.value = static_cast<decltype(m.value)>(random_bits(rng, f.bit_width));
  } else {
    m = static_cast<M>(random_bits(rng, f.bit_width));
  }
}

// The value of a scalar member as the wire carries it.
template <typename M>
uint64_t member_value(const M& m) {
  if constexpr (std::is_enum_v<M>) {
    return static_cast<uint64_t>(static_cast<std::underlying_type_t<M>>(m));
  } else if constexpr (detail::strong_value<M>) {
    return static_cast<uint64_t>(m.value);
  } else {
    return static_cast<uint64_t>(m);
  }
}

template <typename M>
constexpr bool is_scalar_member() {
  return !std::is_same_v<M, Gid> && !detail::is_byte_array<M>::value;
}

template <typename X>
X random_struct(std::mt19937_64& rng) {
  X x{};
  visit_fields(x, [&](const Field& f, auto& m) { fill_random(rng, f, m); });
  return x;
}

}  // namespace ibsm::wire::testing
