#include "mad/wire/guid_info.h"

namespace ibsm::wire {

void encode(const GuidInfo& x, std::span<uint8_t> data) { encode_struct(x, data, guid_info_size); }

Result<GuidInfo> decode_guid_info(std::span<const uint8_t> data) { return decode_struct<GuidInfo>(data, guid_info_size, "guidinfo"); }

}  // namespace ibsm::wire
