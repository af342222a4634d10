#include "mad/wire/multicast_forwarding_table.h"

namespace ibsm::wire {

void encode(const MulticastForwardingTable& x, std::span<uint8_t> data) { encode_struct(x, data, mft_block_size); }

Result<MulticastForwardingTable> decode_multicast_forwarding_table(std::span<const uint8_t> data) { return decode_struct<MulticastForwardingTable>(data, mft_block_size, "multicast forwarding table block"); }

}  // namespace ibsm::wire
