#include "mad/wire/class_port_info.h"

namespace ibsm::wire {

void encode(const ClassPortInfo& x, std::span<uint8_t> data) { encode_struct(x, data, class_port_info_size); }

Result<ClassPortInfo> decode_class_port_info(std::span<const uint8_t> data) {
  return decode_struct<ClassPortInfo>(data, class_port_info_size, "classportinfo");
}

}  // namespace ibsm::wire
