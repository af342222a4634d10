#include "mad/wire/sa/service_record.h"

namespace ibsm::wire {

namespace {
constexpr Field name_in_array{0, service_name_size * 8, "ServiceName"};
}

std::string ServiceRecord::name() const { return get_text(service_name, name_in_array); }

void ServiceRecord::set_name(std::string_view text) { set_text(service_name, name_in_array, text); }

void encode(const ServiceRecord& x, std::span<uint8_t> data) { encode_struct(x, data, sa_record_size::service); }

Result<ServiceRecord> decode_service_record(std::span<const uint8_t> data) {
  return decode_struct<ServiceRecord>(data, sa_record_size::service, "servicerecord");
}

}  // namespace ibsm::wire
