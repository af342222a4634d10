// SLtoVLMappingTable (IBA 14.2.5.8, table 156): the VL of each of the 16 SLs,
// 4 bits each, SL0 in the top nibble of byte 0. For a switch the attribute
// modifier names the input port (bits 15-8) and output port (bits 7-0).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t sl_to_vl_table_size = 8;
inline constexpr size_t sl_count = 16;

namespace sl_to_vl_fields {
constexpr Field vl(size_t sl) { return {static_cast<uint16_t>(sl * 4), 4, "VL"}; }
}  // namespace sl_to_vl_fields

struct SlToVlTable {
  std::array<uint8_t, sl_count> vl_of_sl{};
  bool operator==(const SlToVlTable&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SlToVlTable>
constexpr void visit_fields(Self& x, Fn&& fn) {
  for (size_t sl = 0; sl < sl_count; ++sl) fn(sl_to_vl_fields::vl(sl), x.vl_of_sl[sl]);
}

constexpr uint32_t sl_to_vl_attr_mod(uint8_t in_port, uint8_t out_port) {
  return (uint32_t{in_port} << 8) | out_port;
}

void encode(const SlToVlTable& x, std::span<uint8_t> data);
Result<SlToVlTable> decode_sl_to_vl_table(std::span<const uint8_t> data);

}  // namespace ibsm::wire
