// GUIDInfoRecord (IBA 15.2.5, attribute 0x0030): one block of 8 port GUIDs.
//
//  bytes 0-1 LID   2 BlockNum   3 reserved   4-7 reserved   8-71 GUIDInfo (8 GUIDs)
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/guid_info.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace guid_info_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr Field block_num{16, 8, "BlockNum"};
inline constexpr size_t guid_info_offset = 8;
}  // namespace guid_info_record_fields

struct GuidInfoRecord {
  Lid lid;
  uint8_t block_num = 0;
  GuidInfo guid_info;
  bool operator==(const GuidInfoRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, GuidInfoRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  fn(guid_info_record_fields::lid, x.lid);
  fn(guid_info_record_fields::block_num, x.block_num);
  visit_embedded(x.guid_info, guid_info_record_fields::guid_info_offset, fn);
}

// The spec lists two reserved rows before the GUIDs.
inline constexpr std::array guid_info_record_rows{Field{24, 8, "Reserved"}, Field{32, 32, "Reserved"}};

// LID, BlockNum, reserved, reserved, GUID0-GUID7: bits 0-11.
inline constexpr auto guid_info_record_components =
    component_table<GuidInfoRecord, sa_record_size::guid_info, guid_info_record_rows>();

void encode(const GuidInfoRecord& x, std::span<uint8_t> data);
Result<GuidInfoRecord> decode_guid_info_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
