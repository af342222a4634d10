#include "mad/wire/sa/linear_forwarding_table_record.h"

namespace ibsm::wire {

void encode(const LinearForwardingTableRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::linear_forwarding_table); }

Result<LinearForwardingTableRecord> decode_linear_forwarding_table_record(std::span<const uint8_t> data) { return decode_struct<LinearForwardingTableRecord>(data, sa_record_size::linear_forwarding_table, "lftrecord"); }

}  // namespace ibsm::wire
