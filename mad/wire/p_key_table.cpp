#include "mad/wire/p_key_table.h"

namespace ibsm::wire {

void encode(const PKeyTable& x, std::span<uint8_t> data) { encode_struct(x, data, p_key_table_size); }

Result<PKeyTable> decode_p_key_table(std::span<const uint8_t> data) { return decode_struct<PKeyTable>(data, p_key_table_size, "p_key table block"); }

}  // namespace ibsm::wire
