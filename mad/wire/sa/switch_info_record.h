// SwitchInfoRecord (IBA 15.2.5, attribute 0x0014): one switch's SwitchInfo.
//
//  bytes 0-1 LID   2-3 reserved   4-23 SwitchInfo (switch_info.h)
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/switch_info.h"

namespace ibsm::wire {

namespace switch_info_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr size_t switch_info_offset = 4;
}  // namespace switch_info_record_fields

struct SwitchInfoRecord {
  Lid lid;
  SwitchInfo switch_info;
  bool operator==(const SwitchInfoRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SwitchInfoRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  fn(switch_info_record_fields::lid, x.lid);
  visit_embedded(x.switch_info, switch_info_record_fields::switch_info_offset, fn);
}

// LID, reserved, then SwitchInfo's fields (with its reserved row before
// MulticastFDBTop): bits 0-20.
inline constexpr auto switch_info_record_components = component_table<SwitchInfoRecord, sa_record_size::switch_info>();

void encode(const SwitchInfoRecord& x, std::span<uint8_t> data);
Result<SwitchInfoRecord> decode_switch_info_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
