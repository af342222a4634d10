// P_KeyTableRecord (IBA 15.2.5, attribute 0x0033): one block of 32 P_Keys of
// a port (for a switch, PortNum names the port; for a CA it is reserved).
//
//  bytes 0-1 LID   2-3 BlockNum   4 PortNum   5-7 reserved   8-71 P_KeyTable block
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace p_key_table_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr Field block_num{16, 16, "BlockNum"};
inline constexpr Field port_num{32, 8, "PortNum"};
inline constexpr size_t table_offset = 8;
inline constexpr Field table{table_offset * 8, p_key_table_size * 8, "P_KeyTable"};
}  // namespace p_key_table_record_fields

struct PKeyTableRecord {
  Lid lid;
  uint16_t block_num = 0;
  uint8_t port_num = 0;
  PKeyTable p_key_table;
  bool operator==(const PKeyTableRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PKeyTableRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = p_key_table_record_fields;
  fn(f::lid, x.lid);
  fn(f::block_num, x.block_num);
  fn(f::port_num, x.port_num);
  visit_embedded(x.p_key_table, f::table_offset, fn);
}

inline constexpr std::array p_key_table_record_rows{p_key_table_record_fields::table};

// LID, BlockNum, PortNum, reserved, P_KeyTable: bits 0-4.
inline constexpr auto p_key_table_record_components =
    component_table<PKeyTableRecord, sa_record_size::p_key_table, p_key_table_record_rows>();

void encode(const PKeyTableRecord& x, std::span<uint8_t> data);
Result<PKeyTableRecord> decode_p_key_table_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
