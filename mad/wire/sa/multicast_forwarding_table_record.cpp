#include "mad/wire/sa/multicast_forwarding_table_record.h"

namespace ibsm::wire {

void encode(const MulticastForwardingTableRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::multicast_forwarding_table); }

Result<MulticastForwardingTableRecord> decode_multicast_forwarding_table_record(std::span<const uint8_t> data) { return decode_struct<MulticastForwardingTableRecord>(data, sa_record_size::multicast_forwarding_table, "mftrecord"); }

}  // namespace ibsm::wire
