// MulticastForwardingTable (IBA 14.2.5.12, table 163): for 32 consecutive
// MLIDs, a 16-bit mask of the output ports of one 16-port group. Attribute
// modifier: bits 31-28 the port group (position), bits 8-0 the MLID block
// (block N covers MLIDs 0xC000 + 32N .. +31).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t mft_block_size = 64;  // bytes
inline constexpr size_t mft_entries_per_block = 32;
inline constexpr size_t mft_ports_per_position = 16;

namespace mft_fields {
constexpr Field port_mask(size_t i) { return {static_cast<uint16_t>(i * 16), 16, "PortMask"}; }
}  // namespace mft_fields

struct MulticastForwardingTable {
  std::array<uint16_t, mft_entries_per_block> port_masks{};  // bit p = port 16*position + p
  bool operator==(const MulticastForwardingTable&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, MulticastForwardingTable>
constexpr void visit_fields(Self& x, Fn&& fn) {
  for (size_t i = 0; i < mft_entries_per_block; ++i) fn(mft_fields::port_mask(i), x.port_masks[i]);
}

constexpr uint32_t mft_attr_mod(uint32_t block, uint32_t position) { return (position << 28) | (block & 0x1FF); }
constexpr uint32_t mft_block_of(uint32_t attr_mod) { return attr_mod & 0x1FF; }
constexpr uint32_t mft_position_of(uint32_t attr_mod) { return attr_mod >> 28; }

void encode(const MulticastForwardingTable& x, std::span<uint8_t> data);
Result<MulticastForwardingTable> decode_multicast_forwarding_table(std::span<const uint8_t> data);

}  // namespace ibsm::wire
