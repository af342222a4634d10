// LinearForwardingTable (IBA 14.2.5.10, table 160): the output ports of 64
// consecutive LIDs; attribute modifier N is the block of LIDs 64N .. 64N+63.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t lft_block_size = 64;  // bytes, and LIDs per block
inline constexpr uint8_t lft_unreachable_port = 0xFF;  // no route to this LID

namespace lft_fields {
constexpr Field port(size_t i) { return {static_cast<uint16_t>(i * 8), 8, "Port"}; }
}  // namespace lft_fields

struct LinearForwardingTable {
  std::array<uint8_t, lft_block_size> ports{};
  bool operator==(const LinearForwardingTable&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, LinearForwardingTable>
constexpr void visit_fields(Self& x, Fn&& fn) {
  for (size_t i = 0; i < lft_block_size; ++i) fn(lft_fields::port(i), x.ports[i]);
}

constexpr uint32_t lft_block_of(uint16_t lid) { return lid / lft_block_size; }

void encode(const LinearForwardingTable& x, std::span<uint8_t> data);
Result<LinearForwardingTable> decode_linear_forwarding_table(std::span<const uint8_t> data);

}  // namespace ibsm::wire
