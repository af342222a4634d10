// GUIDInfo (IBA 14.2.5.5, table 151): a block of 8 port GUIDs; the attribute
// modifier selects the block.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t guid_info_size = 64;
inline constexpr size_t guids_per_block = 8;

namespace guid_info_fields {
constexpr Field guid(size_t i) { return {static_cast<uint16_t>(i * 64), 64, "GUID"}; }
}  // namespace guid_info_fields

struct GuidInfo {
  std::array<Guid, guids_per_block> guids{};
  bool operator==(const GuidInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, GuidInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  for (size_t i = 0; i < guids_per_block; ++i) fn(guid_info_fields::guid(i), x.guids[i]);
}

void encode(const GuidInfo& x, std::span<uint8_t> data);
Result<GuidInfo> decode_guid_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
