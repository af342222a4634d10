#include "mad/wire/sa/switch_info_record.h"

namespace ibsm::wire {

void encode(const SwitchInfoRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::switch_info); }

Result<SwitchInfoRecord> decode_switch_info_record(std::span<const uint8_t> data) { return decode_struct<SwitchInfoRecord>(data, sa_record_size::switch_info, "switchinforecord"); }

}  // namespace ibsm::wire
