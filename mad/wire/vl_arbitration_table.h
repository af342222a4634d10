// VLArbitrationTable (IBA 14.2.5.9, table 158): 32 entries of (VL, Weight),
// two bytes each: 4 reserved bits, the VL, then the weight. The attribute
// modifier's bits 31-16 select the part: 1 and 2 the low-priority table's
// entries 0-31 and 32-63, 3 and 4 the high-priority table's (bits 15-0: the
// port, on a switch).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t vl_arbitration_table_size = 64;
inline constexpr size_t vl_arbitration_entries = 32;

namespace vl_arbitration_part {
inline constexpr uint32_t low_0_31 = 1;
inline constexpr uint32_t low_32_63 = 2;
inline constexpr uint32_t high_0_31 = 3;
inline constexpr uint32_t high_32_63 = 4;
}  // namespace vl_arbitration_part

namespace vl_arbitration_fields {
constexpr Field vl(size_t i) { return {static_cast<uint16_t>(i * 16 + 4), 4, "VL"}; }
constexpr Field weight(size_t i) { return {static_cast<uint16_t>(i * 16 + 8), 8, "Weight"}; }
}  // namespace vl_arbitration_fields

struct VlArbitrationEntry {
  uint8_t vl = 0;  // 4 bits
  uint8_t weight = 0;
  bool operator==(const VlArbitrationEntry&) const = default;
};

struct VlArbitrationTable {
  std::array<VlArbitrationEntry, vl_arbitration_entries> entries{};
  bool operator==(const VlArbitrationTable&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, VlArbitrationTable>
constexpr void visit_fields(Self& x, Fn&& fn) {
  for (size_t i = 0; i < vl_arbitration_entries; ++i) {
    fn(vl_arbitration_fields::vl(i), x.entries[i].vl);
    fn(vl_arbitration_fields::weight(i), x.entries[i].weight);
  }
}

constexpr uint32_t vl_arbitration_attr_mod(uint32_t part, uint8_t port) { return (part << 16) | port; }

void encode(const VlArbitrationTable& x, std::span<uint8_t> data);
Result<VlArbitrationTable> decode_vl_arbitration_table(std::span<const uint8_t> data);

}  // namespace ibsm::wire
