// SLtoVLMappingTableRecord (IBA 15.2.5, attribute 0x0013): the SL to VL map
// of one port (for a switch, of one input/output port pair).
//
//  bytes 0-1 LID   2 InputPortNum   3 OutputPortNum   4-7 reserved   8-15 SLtoVLMappingTable
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sl_to_vl_table.h"

namespace ibsm::wire {

namespace sl_to_vl_table_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr Field input_port_num{16, 8, "InputPortNum"};
inline constexpr Field output_port_num{24, 8, "OutputPortNum"};
inline constexpr size_t table_offset = 8;
inline constexpr Field table{table_offset * 8, sl_to_vl_table_size * 8, "SLtoVLMappingTable"};
}  // namespace sl_to_vl_table_record_fields

struct SlToVlTableRecord {
  Lid lid;
  uint8_t input_port_num = 0;
  uint8_t output_port_num = 0;
  SlToVlTable sl_to_vl;
  bool operator==(const SlToVlTableRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SlToVlTableRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = sl_to_vl_table_record_fields;
  fn(f::lid, x.lid);
  fn(f::input_port_num, x.input_port_num);
  fn(f::output_port_num, x.output_port_num);
  visit_embedded(x.sl_to_vl, f::table_offset, fn);
}

inline constexpr std::array sl_to_vl_table_record_rows{sl_to_vl_table_record_fields::table};

// LID, InputPortNum, OutputPortNum, reserved, SLtoVLMappingTable: bits 0-4.
inline constexpr auto sl_to_vl_table_record_components =
    component_table<SlToVlTableRecord, sa_record_size::sl_to_vl_mapping_table, sl_to_vl_table_record_rows>();

void encode(const SlToVlTableRecord& x, std::span<uint8_t> data);
Result<SlToVlTableRecord> decode_sl_to_vl_table_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
