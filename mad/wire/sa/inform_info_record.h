// InformInfoRecord (IBA 15.2.5, attribute 0x00F3): one subscription the SA
// holds, by subscriber.
//
//  bytes 0-15 SubscriberGID   16-17 Enum   18-23 reserved   24-59 InformInfo (inform_info.h)
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace inform_info_record_fields {
inline constexpr Field subscriber_gid{0, 128, "SubscriberGID"};
inline constexpr Field enum_{128, 16, "Enum"};
inline constexpr size_t inform_info_offset = 24;
}  // namespace inform_info_record_fields

struct InformInfoRecord {
  Gid subscriber_gid;
  uint16_t enum_ = 0;  // tells apart subscriptions of one subscriber
  InformInfo inform_info;
  bool operator==(const InformInfoRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, InformInfoRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  fn(inform_info_record_fields::subscriber_gid, x.subscriber_gid);
  fn(inform_info_record_fields::enum_, x.enum_);
  visit_embedded(x.inform_info, inform_info_record_fields::inform_info_offset, fn);
}

// SubscriberGID, Enum, reserved, then InformInfo's fields and reserved rows
// (GID, LIDRangeBegin, LIDRangeEnd, reserved, IsGeneric, Subscribe, Type,
// TrapNumber/DeviceID, QPN, reserved, RespTimeValue, reserved,
// ProducerType/VendorID): bits 0-15.
inline constexpr auto inform_info_record_components =
    component_table<InformInfoRecord, sa_record_size::inform_info>();

void encode(const InformInfoRecord& x, std::span<uint8_t> data);
Result<InformInfoRecord> decode_inform_info_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
