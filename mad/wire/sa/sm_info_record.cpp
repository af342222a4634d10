#include "mad/wire/sa/sm_info_record.h"

namespace ibsm::wire {

void encode(const SmInfoRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::sm_info); }

Result<SmInfoRecord> decode_sm_info_record(std::span<const uint8_t> data) { return decode_struct<SmInfoRecord>(data, sa_record_size::sm_info, "sminforecord"); }

}  // namespace ibsm::wire
