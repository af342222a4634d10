#include "mad/wire/sa/mc_member_record.h"

namespace ibsm::wire {

void encode(const McMemberRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::mc_member); }

Result<McMemberRecord> decode_mc_member_record(std::span<const uint8_t> data) { return decode_struct<McMemberRecord>(data, sa_record_size::mc_member, "mcmemberrecord"); }

}  // namespace ibsm::wire
