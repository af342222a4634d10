#include "mad/wire/sl_to_vl_table.h"

namespace ibsm::wire {

void encode(const SlToVlTable& x, std::span<uint8_t> data) { encode_struct(x, data, sl_to_vl_table_size); }

Result<SlToVlTable> decode_sl_to_vl_table(std::span<const uint8_t> data) { return decode_struct<SlToVlTable>(data, sl_to_vl_table_size, "sl-to-vl table"); }

}  // namespace ibsm::wire
