#include "mad/wire/switch_info.h"

namespace ibsm::wire {

void encode(const SwitchInfo& x, std::span<uint8_t> data) { encode_struct(x, data, switch_info_size); }

Result<SwitchInfo> decode_switch_info(std::span<const uint8_t> data) { return decode_struct<SwitchInfo>(data, switch_info_size, "switchinfo"); }

}  // namespace ibsm::wire
