// LinkRecord (IBA 15.2.5, attribute 0x0020): one direction of a link.
//
//  bytes 0-1 FromLID   2 FromPort   3 ToPort   4-5 ToLID
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace link_record_fields {
inline constexpr Field from_lid{0, 16, "FromLID"};
inline constexpr Field from_port{16, 8, "FromPort"};
inline constexpr Field to_port{24, 8, "ToPort"};
inline constexpr Field to_lid{32, 16, "ToLID"};
}  // namespace link_record_fields

struct LinkRecord {
  Lid from_lid;
  uint8_t from_port = 0;
  uint8_t to_port = 0;
  Lid to_lid;
  bool operator==(const LinkRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, LinkRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = link_record_fields;
  fn(f::from_lid, x.from_lid);
  fn(f::from_port, x.from_port);
  fn(f::to_port, x.to_port);
  fn(f::to_lid, x.to_lid);
}

// FromLID, FromPort, ToPort, ToLID: bits 0-3.
inline constexpr auto link_record_components = component_table<LinkRecord, sa_record_size::link>();

void encode(const LinkRecord& x, std::span<uint8_t> data);
Result<LinkRecord> decode_link_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
