// MultiPathRecord (IBA 15.2.5, attribute 0x003A): a GetMulti query for paths
// between sets of ports: 24 fixed bytes, then SGIDCount source GIDs followed
// by DGIDCount destination GIDs.
//
//  bytes 0-3 RawTraffic (1), reserved (3), FlowLabel (20), HopLimit (8)
//  bytes 4-7 TClass (8), Reversible (1), NumbPath (7), P_Key (16)
//  bytes 8-9 QoSClass (12), SL (4)
//  byte 10 MTUSelector (2) + MTU (6)   11 RateSelector (2) + Rate (6)
//  byte 12 PacketLifeTimeSelector (2) + PacketLifeTime (6)   13 ServiceID8MSB
//  byte 14 IndependenceSelector (2), reserved (6)   15 SGIDCount   16 DGIDCount
//  bytes 17-23 ServiceID56LSB   24.. SDGID list, 16 bytes each
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sa/path_selector.h"

namespace ibsm::wire {

// The GIDs that fit one MAD's SA data after the fixed part: (200 - 24) / 16.
inline constexpr size_t multi_path_max_gids = (sa_data_size - sa_record_size::multi_path_fixed) / 16;

namespace multi_path_record_fields {
inline constexpr Field raw_traffic{0, 1, "RawTraffic"};
inline constexpr Field flow_label{4, 20, "FlowLabel"};
inline constexpr Field hop_limit{24, 8, "HopLimit"};
inline constexpr Field tclass{32, 8, "TClass"};
inline constexpr Field reversible{40, 1, "Reversible"};
inline constexpr Field numb_path{41, 7, "NumbPath"};
inline constexpr Field p_key{48, 16, "P_Key"};
inline constexpr Field qos_class{64, 12, "QoSClass"};
inline constexpr Field sl{76, 4, "SL"};
inline constexpr Field mtu_selector{80, 2, "MTUSelector"};
inline constexpr Field mtu{82, 6, "MTU"};
inline constexpr Field rate_selector{88, 2, "RateSelector"};
inline constexpr Field rate{90, 6, "Rate"};
inline constexpr Field packet_life_time_selector{96, 2, "PacketLifeTimeSelector"};
inline constexpr Field packet_life_time{98, 6, "PacketLifeTime"};
inline constexpr Field service_id_msb{104, 8, "ServiceID8MSB"};
inline constexpr Field independence_selector{112, 2, "IndependenceSelector"};
inline constexpr Field sgid_count{120, 8, "SGIDCount"};
inline constexpr Field dgid_count{128, 8, "DGIDCount"};
inline constexpr Field service_id_lsb{136, 56, "ServiceID56LSB"};
constexpr Field gid(size_t i) { return {static_cast<uint16_t>(192 + 128 * i), 128, "SDGID"}; }
}  // namespace multi_path_record_fields

struct MultiPathRecord {
  bool raw_traffic = false;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t tclass = 0;
  bool reversible = false;
  uint8_t numb_path = 0;    // 7 bits
  uint16_t p_key = 0;
  uint16_t qos_class = 0;   // 12 bits
  uint8_t sl = 0;
  uint8_t mtu_selector = 0;
  uint8_t mtu = 0;
  uint8_t rate_selector = 0;
  uint8_t rate = 0;
  uint8_t packet_life_time_selector = 0;
  uint8_t packet_life_time = 0;
  uint8_t service_id_msb = 0;
  uint8_t independence_selector = 0;  // 2 bits
  uint8_t sgid_count = 0;
  uint8_t dgid_count = 0;
  uint64_t service_id_lsb = 0;  // 56 bits
  // gids[0, sgid_count) are the sources, the next dgid_count the destinations.
  std::array<Gid, multi_path_max_gids> gids{};

  uint64_t service_id() const { return (uint64_t{service_id_msb} << 56) | service_id_lsb; }
  void set_service_id(uint64_t id) {
    service_id_msb = static_cast<uint8_t>(id >> 56);
    service_id_lsb = id & ((uint64_t{1} << 56) - 1);
  }
  size_t gid_count() const { return size_t{sgid_count} + dgid_count; }
  // Both clamp to the array, so a record with bad counts reads no further.
  std::span<const Gid> sgids() const { return std::span(gids).first(std::min<size_t>(sgid_count, gids.size())); }
  std::span<const Gid> dgids() const {
    const size_t first = std::min<size_t>(sgid_count, gids.size());
    return std::span(gids).subspan(first, std::min<size_t>(dgid_count, gids.size() - first));
  }
  // The encoded size: the fixed part and gid_count() GIDs.
  size_t wire_size() const { return sa_record_size::multi_path_fixed + 16 * gid_count(); }
  bool operator==(const MultiPathRecord&) const = default;
};

// The fixed part; the GIDs go by their counts (encode/decode).
template <typename Self, typename Fn>
  requires same_struct<Self, MultiPathRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = multi_path_record_fields;
  fn(f::raw_traffic, x.raw_traffic);
  fn(f::flow_label, x.flow_label);
  fn(f::hop_limit, x.hop_limit);
  fn(f::tclass, x.tclass);
  fn(f::reversible, x.reversible);
  fn(f::numb_path, x.numb_path);
  fn(f::p_key, x.p_key);
  fn(f::qos_class, x.qos_class);
  fn(f::sl, x.sl);
  fn(f::mtu_selector, x.mtu_selector);
  fn(f::mtu, x.mtu);
  fn(f::rate_selector, x.rate_selector);
  fn(f::rate, x.rate);
  fn(f::packet_life_time_selector, x.packet_life_time_selector);
  fn(f::packet_life_time, x.packet_life_time);
  fn(f::service_id_msb, x.service_id_msb);
  fn(f::independence_selector, x.independence_selector);
  fn(f::sgid_count, x.sgid_count);
  fn(f::dgid_count, x.dgid_count);
  fn(f::service_id_lsb, x.service_id_lsb);
}

// The fixed part's components: RawTraffic, reserved, FlowLabel, HopLimit,
// TClass, Reversible, NumbPath, P_Key, QoSClass, SL, MTUSelector, MTU,
// RateSelector, Rate, PacketLifeTimeSelector, PacketLifeTime, ServiceID8MSB,
// IndependenceSelector, reserved, SGIDCount, DGIDCount, ServiceID56LSB: bits
// 0-21. The GID list is selected by its counts, not by the mask.
inline constexpr auto multi_path_record_components =
    component_table<MultiPathRecord, sa_record_size::multi_path_fixed>();

// Writes wire_size() bytes; `data` must hold them and gid_count() must not
// exceed multi_path_max_gids.
void encode(const MultiPathRecord& x, std::span<uint8_t> data);
// Rejects a buffer shorter than the fixed part, more GIDs than one MAD holds,
// and counts whose GIDs the buffer does not hold.
Result<MultiPathRecord> decode_multi_path_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
