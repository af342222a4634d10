#include "mad/wire/sa/node_record.h"

namespace ibsm::wire {

std::string NodeRecord::description() const {
  return get_text(node_description, node_description_fields::node_string);
}

void NodeRecord::set_description(std::string_view text) {
  set_text(node_description, node_description_fields::node_string, text);
}

void encode(const NodeRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::node); }

Result<NodeRecord> decode_node_record(std::span<const uint8_t> data) {
  return decode_struct<NodeRecord>(data, sa_record_size::node, "noderecord");
}

}  // namespace ibsm::wire
