// LinearForwardingTableRecord (IBA 15.2.5, attribute 0x0015): one 64-LID
// block of a switch's LFT.
//
//  bytes 0-1 LID   2-3 BlockNum   4-7 reserved   8-71 LinearForwardingTable block
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/linear_forwarding_table.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace lft_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr Field block_num{16, 16, "BlockNum"};
inline constexpr size_t table_offset = 8;
inline constexpr Field table{table_offset * 8, lft_block_size * 8, "LinearForwardingTable"};
}  // namespace lft_record_fields

struct LinearForwardingTableRecord {
  Lid lid;
  uint16_t block_num = 0;
  LinearForwardingTable lft;
  bool operator==(const LinearForwardingTableRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, LinearForwardingTableRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  fn(lft_record_fields::lid, x.lid);
  fn(lft_record_fields::block_num, x.block_num);
  visit_embedded(x.lft, lft_record_fields::table_offset, fn);
}

// The block is one component.
inline constexpr std::array lft_record_rows{lft_record_fields::table};

// LID, BlockNum, reserved, LinearForwardingTable: bits 0-3.
inline constexpr auto lft_record_components =
    component_table<LinearForwardingTableRecord, sa_record_size::linear_forwarding_table, lft_record_rows>();

void encode(const LinearForwardingTableRecord& x, std::span<uint8_t> data);
Result<LinearForwardingTableRecord> decode_linear_forwarding_table_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
