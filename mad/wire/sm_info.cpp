#include "mad/wire/sm_info.h"

namespace ibsm::wire {

void encode(const SmInfo& x, std::span<uint8_t> data) { encode_struct(x, data, sm_info_size); }

Result<SmInfo> decode_sm_info(std::span<const uint8_t> data) { return decode_struct<SmInfo>(data, sm_info_size, "sminfo"); }

}  // namespace ibsm::wire
