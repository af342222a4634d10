#include "mad/wire/port_info.h"

namespace ibsm::wire {

void encode(const PortInfo& x, std::span<uint8_t> data) { encode_struct(x, data, port_info_size); }

Result<PortInfo> decode_port_info(std::span<const uint8_t> data) {
  return decode_struct<PortInfo>(data, port_info_size, "portinfo");
}

}  // namespace ibsm::wire
