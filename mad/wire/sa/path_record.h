// PathRecord (IBA 15.2.5, attribute 0x0035): the properties of a path
// between two ports, as the SA answers a query for it.
//
//  bytes 0-7   ServiceID (IBA 1.2.1+: two components, 8 MSBs and 56 LSBs)
//  bytes 8-23  DGID             bytes 24-39 SGID     bytes 40-41 DLID   42-43 SLID
//  bytes 44-47 RawTraffic (1), reserved (3), FlowLabel (20), HopLimit (8)
//  bytes 48-51 TClass (8), Reversible (1), NumbPath (7), P_Key (16)
//  bytes 52-53 QoSClass (12), SL (4)
//  byte 54 MTUSelector (2) + MTU (6)    byte 55 RateSelector (2) + Rate (6)
//  byte 56 PacketLifeTimeSelector (2) + PacketLifeTime (6)   byte 57 Preference
//  bytes 58-63 reserved
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sa/path_selector.h"

namespace ibsm::wire {

namespace path_record_fields {
inline constexpr Field service_id{0, 64, "ServiceID"};
inline constexpr Field service_id_msb{0, 8, "ServiceID8MSB"};
inline constexpr Field service_id_lsb{8, 56, "ServiceID56LSB"};
inline constexpr Field dgid{64, 128, "DGID"};
inline constexpr Field sgid{192, 128, "SGID"};
inline constexpr Field dlid{320, 16, "DLID"};
inline constexpr Field slid{336, 16, "SLID"};
inline constexpr Field raw_traffic{352, 1, "RawTraffic"};
inline constexpr Field flow_label{356, 20, "FlowLabel"};
inline constexpr Field hop_limit{376, 8, "HopLimit"};
inline constexpr Field tclass{384, 8, "TClass"};
inline constexpr Field reversible{392, 1, "Reversible"};
inline constexpr Field numb_path{393, 7, "NumbPath"};
inline constexpr Field p_key{400, 16, "P_Key"};
inline constexpr Field qos_class{416, 12, "QoSClass"};
inline constexpr Field sl{428, 4, "SL"};
inline constexpr Field mtu_selector{432, 2, "MTUSelector"};
inline constexpr Field mtu{434, 6, "MTU"};
inline constexpr Field rate_selector{440, 2, "RateSelector"};
inline constexpr Field rate{442, 6, "Rate"};
inline constexpr Field packet_life_time_selector{448, 2, "PacketLifeTimeSelector"};
inline constexpr Field packet_life_time{450, 6, "PacketLifeTime"};
inline constexpr Field preference{456, 8, "Preference"};
}  // namespace path_record_fields

struct PathRecord {
  uint64_t service_id = 0;
  Gid dgid;
  Gid sgid;
  Lid dlid;
  Lid slid;
  bool raw_traffic = false;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t tclass = 0;
  bool reversible = false;
  uint8_t numb_path = 0;    // 7 bits: in a query, the most paths wanted
  uint16_t p_key = 0;
  uint16_t qos_class = 0;   // 12 bits
  uint8_t sl = 0;           // 4 bits
  uint8_t mtu_selector = 0;  // sa_selector
  uint8_t mtu = 0;           // 6 bits, IBA MTU code (1 = 256 ... 5 = 4096)
  uint8_t rate_selector = 0;
  uint8_t rate = 0;          // 6 bits, IBA rate code
  uint8_t packet_life_time_selector = 0;
  uint8_t packet_life_time = 0;  // 6 bits
  uint8_t preference = 0;
  bool operator==(const PathRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PathRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = path_record_fields;
  fn(f::service_id, x.service_id);
  fn(f::dgid, x.dgid);
  fn(f::sgid, x.sgid);
  fn(f::dlid, x.dlid);
  fn(f::slid, x.slid);
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
  fn(f::preference, x.preference);
}

// ServiceID is two components (IBA 1.2.1 split it so a query can select the
// 8 MSBs alone).
inline constexpr std::array path_record_rows{path_record_fields::service_id_msb, path_record_fields::service_id_lsb};

// ServiceID8MSB, ServiceID56LSB, DGID, SGID, DLID, SLID, RawTraffic, reserved,
// FlowLabel, HopLimit, TClass, Reversible, NumbPath, P_Key, QoSClass, SL,
// MTUSelector, MTU, RateSelector, Rate, PacketLifeTimeSelector,
// PacketLifeTime, Preference, reserved: bits 0-23.
inline constexpr auto path_record_components =
    component_table<PathRecord, sa_record_size::path, path_record_rows>();

void encode(const PathRecord& x, std::span<uint8_t> data);
Result<PathRecord> decode_path_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
