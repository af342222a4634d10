#include "mad/wire/inform_info.h"

namespace ibsm::wire {

void encode(const InformInfo& x, std::span<uint8_t> data) { encode_struct(x, data, inform_info_size); }

Result<InformInfo> decode_inform_info(std::span<const uint8_t> data) {
  return decode_struct<InformInfo>(data, inform_info_size, "informinfo");
}

}  // namespace ibsm::wire
