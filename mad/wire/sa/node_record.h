// NodeRecord (IBA 15.2.5, attribute 0x0011): a node's NodeInfo and
// NodeDescription, keyed by the LID of the port they were read through.
//
//  bytes 0-1 LID   2-3 reserved   4-43 NodeInfo (node_info.h)   44-107 NodeDescription
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/node_description.h"
#include "mad/wire/node_info.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace node_record_fields {
inline constexpr Field lid{0, 16, "LID"};
inline constexpr size_t node_info_offset = 4;
inline constexpr size_t node_description_offset = 44;
inline constexpr Field node_description = node_description_fields::node_string.shifted(node_description_offset);
}  // namespace node_record_fields

struct NodeRecord {
  Lid lid;
  NodeInfo node_info;
  // The NodeDescription as the wire has it (NUL-padded UTF-8), so a record
  // round-trips byte for byte; description() and set_description() convert.
  std::array<uint8_t, node_description_size> node_description{};

  std::string description() const;
  void set_description(std::string_view text);
  bool operator==(const NodeRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, NodeRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = node_record_fields;
  fn(f::lid, x.lid);
  visit_embedded(x.node_info, f::node_info_offset, fn);
  fn(f::node_description, x.node_description);
}

// LID, reserved, the 12 NodeInfo fields, NodeDescription: bits 0-14.
inline constexpr auto node_record_components = component_table<NodeRecord, sa_record_size::node>();

void encode(const NodeRecord& x, std::span<uint8_t> data);
Result<NodeRecord> decode_node_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
