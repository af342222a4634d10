// SMInfoRecord (IBA 15.2.5, attribute 0x0018): the SMInfo of one SM port.
//
//  bytes 0-1 LID   2-3 reserved   4-24 SMInfo (sm_info.h)
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sm_info.h"

namespace ibsm::wire {

namespace sm_info_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr size_t sm_info_offset = 4;
}  // namespace sm_info_record_fields

struct SmInfoRecord {
  Lid lid;
  SmInfo sm_info;
  bool operator==(const SmInfoRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SmInfoRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  fn(sm_info_record_fields::lid, x.lid);
  visit_embedded(x.sm_info, sm_info_record_fields::sm_info_offset, fn);
}

// LID, reserved, GUID, SM_Key, ActCount, Priority, SMState: bits 0-6.
inline constexpr auto sm_info_record_components = component_table<SmInfoRecord, sa_record_size::sm_info>();

void encode(const SmInfoRecord& x, std::span<uint8_t> data);
Result<SmInfoRecord> decode_sm_info_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
