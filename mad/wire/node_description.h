// NodeDescription (IBA 14.2.5.2): 64 bytes of UTF-8 text, NUL padded.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "mad/base/status.h"
#include "mad/wire/field.h"

namespace ibsm::wire {

inline constexpr size_t node_description_size = 64;

namespace node_description_fields {
inline constexpr Field node_string{0, 512, "NodeString"};
}  // namespace node_description_fields

inline constexpr std::array node_description_field_table{node_description_fields::node_string};

struct NodeDescription {
  std::string text;  // up to 64 bytes; longer text is cut on encode
  bool operator==(const NodeDescription&) const = default;
};

void encode(const NodeDescription& x, std::span<uint8_t> data);
// The text ends at the first NUL or after 64 bytes.
Result<NodeDescription> decode_node_description(std::span<const uint8_t> data);

}  // namespace ibsm::wire
