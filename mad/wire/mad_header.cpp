#include "mad/wire/mad_header.h"

#include <fmt/format.h>

namespace ibsm::wire {

void encode(const MadHeader& h, std::span<uint8_t> mad) { encode_struct(h, mad, mad_header_size); }

Result<MadHeader> decode_mad_header(std::span<const uint8_t> mad) {
  return decode_struct<MadHeader>(mad, mad_header_size, "mad header");
}

Result<MadHeader> parse_gmp(std::span<const uint8_t> mad) {
  if (mad.size() != mad_size)
    return invalid_argument_error(fmt::format("mad is {} bytes, expected {}", mad.size(), mad_size));
  MadHeader h{};
  decode_fields(mad, h);
  if (h.base_version != mad_base_version)
    return invalid_argument_error(fmt::format("mad base version {}, expected 1", h.base_version));
  if (h.mgmt_class == mgmt_class::subn_lid_routed || h.mgmt_class == mgmt_class::subn_directed_route)
    return invalid_argument_error(fmt::format("class 0x{:02x} is an smp, not a gmp", h.mgmt_class));
  return h;
}

}  // namespace ibsm::wire
