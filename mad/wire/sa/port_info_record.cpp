#include "mad/wire/sa/port_info_record.h"

namespace ibsm::wire {

void encode(const PortInfoRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::port_info); }

Result<PortInfoRecord> decode_port_info_record(std::span<const uint8_t> data) {
  return decode_struct<PortInfoRecord>(data, sa_record_size::port_info, "portinforecord");
}

}  // namespace ibsm::wire
