#include "mad/wire/vl_arbitration_table.h"

namespace ibsm::wire {

void encode(const VlArbitrationTable& x, std::span<uint8_t> data) { encode_struct(x, data, vl_arbitration_table_size); }

Result<VlArbitrationTable> decode_vl_arbitration_table(std::span<const uint8_t> data) { return decode_struct<VlArbitrationTable>(data, vl_arbitration_table_size, "vl arbitration table"); }

}  // namespace ibsm::wire
