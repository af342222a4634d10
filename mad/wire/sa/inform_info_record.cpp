#include "mad/wire/sa/inform_info_record.h"

namespace ibsm::wire {

void encode(const InformInfoRecord& x, std::span<uint8_t> data) {
  encode_struct(x, data, sa_record_size::inform_info);
}

Result<InformInfoRecord> decode_inform_info_record(std::span<const uint8_t> data) {
  return decode_struct<InformInfoRecord>(data, sa_record_size::inform_info, "informinforecord");
}

}  // namespace ibsm::wire
