#include "mad/wire/sa/link_record.h"

namespace ibsm::wire {

void encode(const LinkRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::link); }

Result<LinkRecord> decode_link_record(std::span<const uint8_t> data) { return decode_struct<LinkRecord>(data, sa_record_size::link, "linkrecord"); }

}  // namespace ibsm::wire
