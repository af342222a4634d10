// VLArbitrationTableRecord (IBA 15.2.5, attribute 0x0036): one block of a
// port's VL arbitration table (BlockNum as the SMP's part number, 1-4).
//
//  bytes 0-1 LID   2 OutputPortNum   3 BlockNum   4-7 reserved   8-71 VLArbitrationTable
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/vl_arbitration_table.h"

namespace ibsm::wire {

namespace vl_arbitration_table_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr Field output_port_num{16, 8, "OutputPortNum"};
inline constexpr Field block_num{24, 8, "BlockNum"};
inline constexpr size_t table_offset = 8;
inline constexpr Field table{table_offset * 8, vl_arbitration_table_size * 8, "VLArbitrationTable"};
}  // namespace vl_arbitration_table_record_fields

struct VlArbitrationTableRecord {
  Lid lid;
  uint8_t output_port_num = 0;
  uint8_t block_num = 0;
  VlArbitrationTable vl_arbitration;
  bool operator==(const VlArbitrationTableRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, VlArbitrationTableRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = vl_arbitration_table_record_fields;
  fn(f::lid, x.lid);
  fn(f::output_port_num, x.output_port_num);
  fn(f::block_num, x.block_num);
  visit_embedded(x.vl_arbitration, f::table_offset, fn);
}

inline constexpr std::array vl_arbitration_table_record_rows{vl_arbitration_table_record_fields::table};

// LID, OutputPortNum, BlockNum, reserved, VLArbitrationTable: bits 0-4.
inline constexpr auto vl_arbitration_table_record_components =
    component_table<VlArbitrationTableRecord, sa_record_size::vl_arbitration_table,
                    vl_arbitration_table_record_rows>();

void encode(const VlArbitrationTableRecord& x, std::span<uint8_t> data);
Result<VlArbitrationTableRecord> decode_vl_arbitration_table_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
