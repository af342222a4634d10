#include "mad/wire/sa/path_record.h"

namespace ibsm::wire {

void encode(const PathRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::path); }

Result<PathRecord> decode_path_record(std::span<const uint8_t> data) { return decode_struct<PathRecord>(data, sa_record_size::path, "pathrecord"); }

}  // namespace ibsm::wire
