#include "mad/wire/sa/vl_arbitration_table_record.h"

namespace ibsm::wire {

void encode(const VlArbitrationTableRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::vl_arbitration_table); }

Result<VlArbitrationTableRecord> decode_vl_arbitration_table_record(std::span<const uint8_t> data) { return decode_struct<VlArbitrationTableRecord>(data, sa_record_size::vl_arbitration_table, "vlarbitrationtablerecord"); }

}  // namespace ibsm::wire
