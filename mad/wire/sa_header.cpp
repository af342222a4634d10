#include "mad/wire/sa_header.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace ibsm::wire {

void encode(const SaHeader& h, std::span<uint8_t> mad) {
  assert(mad.size() >= sa_data_offset);
  std::fill(mad.begin() + rmpp_header_end, mad.begin() + sa_data_offset, uint8_t{0});
  encode_fields(h, mad);
}

Result<SaHeader> decode_sa_header(std::span<const uint8_t> mad) {
  return decode_struct<SaHeader>(mad, sa_data_offset, "sa header");
}

void encode(const SaMad& m, std::span<uint8_t> mad) {
  assert(mad.size() >= mad_size);
  std::fill_n(mad.begin(), mad_size, uint8_t{0});
  encode_fields(m.header, mad);
  encode_fields(m.rmpp, mad);
  encode_fields(m.sa, mad);
  set_bytes(mad, sa_fields::data, m.data);
}

Result<SaMad> decode_sa_mad(std::span<const uint8_t> mad) {
  if (mad.size() != mad_size)
    return invalid_argument_error(fmt::format("sa mad is {} bytes, expected {}", mad.size(), mad_size));
  SaMad m;
  decode_fields(mad, m.header);
  decode_fields(mad, m.rmpp);
  decode_fields(mad, m.sa);
  get_bytes(mad, sa_fields::data, m.data);
  return m;
}

Result<SaMad> parse_sa_mad(std::span<const uint8_t> mad) {
  auto header = parse_gmp(mad);
  if (!header.ok()) return header.status();
  if (header->mgmt_class != mgmt_class::subn_adm)
    return invalid_argument_error(fmt::format("class 0x{:02x} is not subnet administration", header->mgmt_class));
  if (header->class_version != sa_class_version)
    return invalid_argument_error(
        fmt::format("sa class version {}, expected {}", header->class_version, sa_class_version));
  auto m = decode_sa_mad(mad);
  if (!m.ok()) return m.status();
  const RmppHeader& r = m->rmpp;
  if (r.version > rmpp_version) return invalid_argument_error(fmt::format("rmpp version {} unsupported", r.version));
  if (r.active()) {
    if (r.version == 0) return invalid_argument_error("rmpp active with rmpp version 0");
    if (r.type == rmpp_type::none || r.type > rmpp_type::abort)
      return invalid_argument_error(fmt::format("rmpp active with rmpp type {}", r.type));
  } else if (r.type != rmpp_type::none) {
    return invalid_argument_error(fmt::format("rmpp type {} without the active flag", r.type));
  }
  return m;
}

}  // namespace ibsm::wire
