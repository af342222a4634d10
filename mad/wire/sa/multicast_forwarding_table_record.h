// MulticastForwardingTableRecord (IBA 15.2.5, attribute 0x0017): one block
// of 32 MLIDs at one 16-port position of a switch's MFT.
//
//  bytes 0-1 LID   2-3 Position (4 bits), reserved (3), BlockNum (9)
//  bytes 4-7 reserved   8-71 MulticastForwardingTable block
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/multicast_forwarding_table.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace mft_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr Field position{16, 4, "Position"};
inline constexpr Field block_num{23, 9, "BlockNum"};
inline constexpr size_t table_offset = 8;
inline constexpr Field table{table_offset * 8, mft_block_size * 8, "MulticastForwardingTable"};
}  // namespace mft_record_fields

struct MulticastForwardingTableRecord {
  Lid lid;
  uint8_t position = 0;     // 4 bits
  uint16_t block_num = 0;   // 9 bits
  MulticastForwardingTable mft;
  bool operator==(const MulticastForwardingTableRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, MulticastForwardingTableRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = mft_record_fields;
  fn(f::lid, x.lid);
  fn(f::position, x.position);
  fn(f::block_num, x.block_num);
  visit_embedded(x.mft, f::table_offset, fn);
}

inline constexpr std::array mft_record_rows{mft_record_fields::table};

// LID, Position, reserved, BlockNum, reserved, MulticastForwardingTable: bits 0-5.
inline constexpr auto mft_record_components =
    component_table<MulticastForwardingTableRecord, sa_record_size::multicast_forwarding_table, mft_record_rows>();

void encode(const MulticastForwardingTableRecord& x, std::span<uint8_t> data);
Result<MulticastForwardingTableRecord> decode_multicast_forwarding_table_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
