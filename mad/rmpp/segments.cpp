#include "mad/rmpp/segments.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace ibsm::rmpp {

uint32_t segment_count(size_t data_bytes, const Layout& layout) {
  const size_t per = layout.segment_data();
  if (data_bytes == 0) return 1;
  return static_cast<uint32_t>((data_bytes + per - 1) / per);
}

// Unused bytes at the end of the last segment (mad.c get_pad_size: a whole
// segment when there is no data).
static size_t pad_bytes(size_t data_bytes, const Layout& layout) {
  return segment_count(data_bytes, layout) * layout.segment_data() - data_bytes;
}

uint32_t total_payload_length(size_t data_bytes, const Layout& layout) {
  assert(data_bytes <= max_data_bytes(layout));
  return static_cast<uint32_t>(segment_count(data_bytes, layout) * layout.segment_payload() -
                               pad_bytes(data_bytes, layout));
}

uint32_t last_payload_length(size_t data_bytes, const Layout& layout) {
  return static_cast<uint32_t>(layout.segment_payload() - pad_bytes(data_bytes, layout));
}

size_t max_data_bytes(const Layout& layout) {
  const size_t segments = std::numeric_limits<uint32_t>::max() / layout.segment_payload();
  return segments * layout.segment_data();
}

wire::MadBuffer make_data_segment(std::span<const uint8_t> header, std::span<const uint8_t> data,
                                  uint32_t segment, const Layout& layout, uint8_t resp_time) {
  assert(header.size() >= layout.data_offset);
  const uint32_t count = segment_count(data.size(), layout);
  assert(segment >= 1 && segment <= count);
  wire::MadBuffer mad{};
  std::copy_n(header.begin(), layout.data_offset, mad.begin());

  wire::RmppHeader r;
  r.version = wire::rmpp_version;
  r.type = wire::rmpp_type::data;
  r.resp_time = resp_time;
  r.flags = wire::rmpp_flag::active;
  if (segment == 1) {
    r.flags |= wire::rmpp_flag::first;
    r.data2 = total_payload_length(data.size(), layout);
  }
  if (segment == count) {
    // Of one segment, total and last lengths are the same number.
    r.flags |= wire::rmpp_flag::last;
    r.data2 = last_payload_length(data.size(), layout);
  }
  r.data1 = segment;
  wire::encode(r, mad);

  const size_t begin = (segment - 1) * layout.segment_data();
  const size_t n = std::min(layout.segment_data(), data.size() - std::min(begin, data.size()));
  if (n > 0) std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(begin), n, mad.begin() + layout.data_offset);
  return mad;
}

wire::MadBuffer make_control(std::span<const uint8_t> tmpl, const Control& c, bool flip_method, const Layout& layout) {
  assert(tmpl.size() >= layout.data_offset);
  wire::MadBuffer mad{};
  std::copy_n(tmpl.begin(), layout.data_offset, mad.begin());
  if (flip_method) mad[3] ^= wire::method::response_bit;  // byte 3: R bit + method (IBA 13.4.2)
  wire::RmppHeader r;
  r.version = wire::rmpp_version;
  r.type = c.type;
  r.resp_time = c.resp_time;
  r.flags = wire::rmpp_flag::active;
  r.status = c.status;
  r.data1 = c.segment;
  r.data2 = c.new_window_last;
  wire::encode(r, mad);
  return mad;
}

std::optional<uint8_t> header_problem(const wire::RmppHeader& h) {
  if (h.version != wire::rmpp_version) return wire::rmpp_status::unsupported_version;
  if (h.type < wire::rmpp_type::data || h.type > wire::rmpp_type::abort) return wire::rmpp_status::bad_rmpp_type;
  return std::nullopt;
}

const char* transfer_state_name(TransferState s) {
  switch (s) {
    case TransferState::active: return "active";
    case TransferState::done: return "done";
    case TransferState::aborted: return "aborted";
  }
  return "?";
}

const char* rmpp_status_name(uint8_t status) {
  namespace st = wire::rmpp_status;
  switch (status) {
    case st::normal: return "normal";
    case st::resources_exhausted: return "resources_exhausted";
    case st::total_time_too_long: return "total_time_too_long";
    case st::inconsistent_last_and_payload_length: return "inconsistent_last_and_payload_length";
    case st::inconsistent_first_and_segment_number: return "inconsistent_first_and_segment_number";
    case st::bad_rmpp_type: return "bad_rmpp_type";
    case st::new_window_last_too_small: return "new_window_last_too_small";
    case st::segment_number_too_big: return "segment_number_too_big";
    case st::illegal_status: return "illegal_status";
    case st::unsupported_version: return "unsupported_version";
    case st::too_many_retries: return "too_many_retries";
    case st::unspecified: return "unspecified";
    default: return "unknown";
  }
}

}  // namespace ibsm::rmpp
