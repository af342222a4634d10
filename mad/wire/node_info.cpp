#include "mad/wire/node_info.h"

namespace ibsm::wire {

void encode(const NodeInfo& x, std::span<uint8_t> data) { encode_struct(x, data, node_info_size); }

Result<NodeInfo> decode_node_info(std::span<const uint8_t> data) {
  return decode_struct<NodeInfo>(data, node_info_size, "nodeinfo");
}

}  // namespace ibsm::wire
