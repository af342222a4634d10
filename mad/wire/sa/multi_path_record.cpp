#include "mad/wire/sa/multi_path_record.h"

#include <cassert>

#include <fmt/format.h>

namespace ibsm::wire {

void encode(const MultiPathRecord& x, std::span<uint8_t> data) {
  assert(x.gid_count() <= multi_path_max_gids);
  assert(data.size() >= x.wire_size());
  encode_struct(x, data, sa_record_size::multi_path_fixed);
  for (size_t i = 0; i < x.gid_count(); ++i) set_gid(data, multi_path_record_fields::gid(i), x.gids[i]);
}

Result<MultiPathRecord> decode_multi_path_record(std::span<const uint8_t> data) {
  auto x = decode_struct<MultiPathRecord>(data, sa_record_size::multi_path_fixed, "multipathrecord");
  if (!x.ok()) return x;
  if (x->gid_count() > multi_path_max_gids)
    return invalid_argument_error(fmt::format("multipathrecord with {} sgids and {} dgids: more than {} gids",
                                              x->sgid_count, x->dgid_count, multi_path_max_gids));
  if (data.size() < x->wire_size())
    return invalid_argument_error(fmt::format("short multipathrecord: {} bytes, {} sgids and {} dgids need {}",
                                              data.size(), x->sgid_count, x->dgid_count, x->wire_size()));
  for (size_t i = 0; i < x->gid_count(); ++i) x->gids[i] = get_gid(data, multi_path_record_fields::gid(i));
  return x;
}

}  // namespace ibsm::wire
