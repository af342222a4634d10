#include "mad/wire/sa/sl_to_vl_table_record.h"

namespace ibsm::wire {

void encode(const SlToVlTableRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::sl_to_vl_mapping_table); }

Result<SlToVlTableRecord> decode_sl_to_vl_table_record(std::span<const uint8_t> data) { return decode_struct<SlToVlTableRecord>(data, sa_record_size::sl_to_vl_mapping_table, "sltovltablerecord"); }

}  // namespace ibsm::wire
