#include "mad/wire/sa/guid_info_record.h"

namespace ibsm::wire {

void encode(const GuidInfoRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::guid_info); }

Result<GuidInfoRecord> decode_guid_info_record(std::span<const uint8_t> data) { return decode_struct<GuidInfoRecord>(data, sa_record_size::guid_info, "guidinforecord"); }

}  // namespace ibsm::wire
