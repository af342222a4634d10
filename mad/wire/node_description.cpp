#include "mad/wire/node_description.h"

#include <fmt/format.h>

namespace ibsm::wire {

void encode(const NodeDescription& x, std::span<uint8_t> data) {
  set_text(data, node_description_fields::node_string, x.text);
}

Result<NodeDescription> decode_node_description(std::span<const uint8_t> data) {
  if (data.size() < node_description_size)
    return invalid_argument_error(
        fmt::format("short nodedescription: {} bytes, need {}", data.size(), node_description_size));
  return NodeDescription{get_text(data, node_description_fields::node_string)};
}

}  // namespace ibsm::wire
