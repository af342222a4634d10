#include "mad/wire/sa/p_key_table_record.h"

namespace ibsm::wire {

void encode(const PKeyTableRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::p_key_table); }

Result<PKeyTableRecord> decode_p_key_table_record(std::span<const uint8_t> data) { return decode_struct<PKeyTableRecord>(data, sa_record_size::p_key_table, "pkeytablerecord"); }

}  // namespace ibsm::wire
