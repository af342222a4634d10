#include "mad/wire/rmpp.h"

#include <algorithm>
#include <cassert>

namespace ibsm::wire {

void encode(const RmppHeader& h, std::span<uint8_t> mad) {
  assert(mad.size() >= rmpp_header_end);
  std::fill(mad.begin() + 24, mad.begin() + rmpp_header_end, uint8_t{0});
  encode_fields(h, mad);
}

Result<RmppHeader> decode_rmpp_header(std::span<const uint8_t> mad) {
  return decode_struct<RmppHeader>(mad, rmpp_header_end, "rmpp header");
}

}  // namespace ibsm::wire
