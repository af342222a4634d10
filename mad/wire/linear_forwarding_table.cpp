#include "mad/wire/linear_forwarding_table.h"

#include <algorithm>
#include <cassert>

namespace ibsm::wire {

// The field table is 64 one-byte ports in order, so the block's bytes are the
// ports as they stand: one copy, not 64 field writes (a bring-up on 42k LIDs
// encodes 2.3M blocks). The tests hold these to encode_struct/decode_struct.
void encode(const LinearForwardingTable& x, std::span<uint8_t> data) {
  assert(data.size() >= lft_block_size);
  std::copy(x.ports.begin(), x.ports.end(), data.begin());
}

Result<LinearForwardingTable> decode_linear_forwarding_table(std::span<const uint8_t> data) {
  if (data.size() < lft_block_size)
    return invalid_argument_error(
        fmt::format("short linear forwarding table block: {} bytes, need {}", data.size(), lft_block_size));
  LinearForwardingTable x;
  std::copy_n(data.begin(), lft_block_size, x.ports.begin());
  return x;
}

}  // namespace ibsm::wire
