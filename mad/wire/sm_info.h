// SMInfo (IBA 14.2.5.13, table 165): 21 bytes of SMP data.
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t sm_info_size = 21;

// SMInfo:SMState (IBA 14.4.1).
namespace sm_state {
inline constexpr uint8_t not_active = 0;
inline constexpr uint8_t discovering = 1;
inline constexpr uint8_t standby = 2;
inline constexpr uint8_t master = 3;
}  // namespace sm_state

// SMInfo Set attribute modifiers: the control packets of SM handover (IBA 14.4.1).
namespace sm_info_control {
inline constexpr uint32_t handover = 1;
inline constexpr uint32_t acknowledge = 2;
inline constexpr uint32_t disable = 3;
inline constexpr uint32_t standby = 4;
inline constexpr uint32_t discover = 5;
}  // namespace sm_info_control

namespace sm_info_fields {
inline constexpr Field guid{0, 64, "GUID"};
inline constexpr Field sm_key{64, 64, "SM_Key"};
inline constexpr Field act_count{128, 32, "ActCount"};
inline constexpr Field priority{160, 4, "Priority"};
inline constexpr Field sm_state{164, 4, "SMState"};
}  // namespace sm_info_fields

struct SmInfo {
  Guid guid;
  uint64_t sm_key = 0;
  uint32_t act_count = 0;
  uint8_t priority = 0;  // 4 bits
  uint8_t sm_state = sm_state::not_active;
  bool operator==(const SmInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SmInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = sm_info_fields;
  fn(f::guid, x.guid);
  fn(f::sm_key, x.sm_key);
  fn(f::act_count, x.act_count);
  fn(f::priority, x.priority);
  fn(f::sm_state, x.sm_state);
}

// "NOT ACTIVE", "DISCOVERING", "STANDBY", "MASTER" (as sminfo and OpenSM's log say them).
const char* sm_state_name(uint8_t sm_state);
// "HANDOVER", "ACKNOWLEDGE", "DISABLE", "STANDBY", "DISCOVER".
const char* sm_control_name(uint32_t modifier);

void encode(const SmInfo& x, std::span<uint8_t> data);
Result<SmInfo> decode_sm_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
