#include "mad/wire/linear_forwarding_table.h"

namespace ibsm::wire {

void encode(const LinearForwardingTable& x, std::span<uint8_t> data) { encode_struct(x, data, lft_block_size); }

Result<LinearForwardingTable> decode_linear_forwarding_table(std::span<const uint8_t> data) { return decode_struct<LinearForwardingTable>(data, lft_block_size, "linear forwarding table block"); }

}  // namespace ibsm::wire
