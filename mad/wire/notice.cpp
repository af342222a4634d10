#include "mad/wire/notice.h"

#include <cassert>

namespace ibsm::wire {

void encode(const Notice& n, std::span<uint8_t> data) {
  assert(data.size() >= notice_size_without_gid);
  const bool with_gid = data.size() >= notice_size;
  encode_struct(n, data, with_gid ? notice_size : notice_size_without_gid);
  if (with_gid) set_gid(data, notice_fields::issuer_gid, n.issuer_gid);
}

Result<Notice> decode_notice(std::span<const uint8_t> data) {
  auto n = decode_struct<Notice>(data, notice_size_without_gid, "notice");
  if (n.ok() && data.size() >= notice_size) n->issuer_gid = get_gid(data, notice_fields::issuer_gid);
  return n;
}

}  // namespace ibsm::wire
