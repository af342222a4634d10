// P_KeyTable (IBA 14.2.5.7, table 155): a block of 32 partition keys; the
// attribute modifier selects the block (for a switch, bits 31-16 the port).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t p_key_table_size = 64;
inline constexpr size_t p_keys_per_block = 32;
// A P_Key (IBA 10.9.1): the membership bit (bit 15, set for a full member)
// over the partition number (the low 15 bits, the base). The P_Key
// constants of the core are these; nothing else spells 0x7FFF or 0x8000.
inline constexpr uint16_t p_key_full_member_bit = 0x8000;
inline constexpr uint16_t p_key_base_mask = 0x7FFF;
// The default P_Key (IBA 10.9.1.1): the Default partition, full member.
inline constexpr uint16_t default_p_key = 0xFFFF;
// The Default partition's P_Key without the membership bit (0x7FFF).
inline constexpr uint16_t default_partition = default_p_key & p_key_base_mask;

namespace p_key_table_fields {
constexpr Field p_key(size_t i) { return {static_cast<uint16_t>(i * 16), 16, "P_Key"}; }
}  // namespace p_key_table_fields

struct PKeyTable {
  std::array<uint16_t, p_keys_per_block> p_keys{};
  bool operator==(const PKeyTable&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PKeyTable>
constexpr void visit_fields(Self& x, Fn&& fn) {
  for (size_t i = 0; i < p_keys_per_block; ++i) fn(p_key_table_fields::p_key(i), x.p_keys[i]);
}

void encode(const PKeyTable& x, std::span<uint8_t> data);
Result<PKeyTable> decode_p_key_table(std::span<const uint8_t> data);

}  // namespace ibsm::wire
