#include "mad/wire/perf_counters.h"

namespace ibsm::wire {

void encode(const PortCounters& x, std::span<uint8_t> data) { encode_struct(x, data, port_counters_size); }

Result<PortCounters> decode_port_counters(std::span<const uint8_t> data) {
  return decode_struct<PortCounters>(data, port_counters_size, "portcounters");
}

void encode(const PortCountersExtended& x, std::span<uint8_t> data) {
  encode_struct(x, data, port_counters_extended_size);
}

Result<PortCountersExtended> decode_port_counters_extended(std::span<const uint8_t> data) {
  return decode_struct<PortCountersExtended>(data, port_counters_extended_size, "portcountersextended");
}

MadBuffer build_perf_mad(uint8_t method, uint16_t attr_id, uint32_t attr_mod) {
  MadBuffer mad{};
  MadHeader h;
  h.mgmt_class = mgmt_class::perf_mgt;
  h.class_version = perf_class_version;
  h.method = method;
  h.attr_id = attr_id;
  h.attr_mod = attr_mod;
  encode(h, mad);
  return mad;
}

}  // namespace ibsm::wire
