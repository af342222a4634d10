// MCMemberRecord (IBA 15.2.5, attribute 0x0038): a port's membership in a
// multicast group, and the group's properties.
//
//  bytes 0-15 MGID   16-31 PortGID   32-35 Q_Key   36-37 MLID
//  byte 38 MTUSelector (2) + MTU (6)   39 TClass   40-41 P_Key
//  byte 42 RateSelector (2) + Rate (6)   43 PacketLifeTimeSelector (2) + PacketLifeTime (6)
//  bytes 44-47 SL (4), FlowLabel (20), HopLimit (8)
//  byte 48 Scope (4) + JoinState (4)   49-51 ProxyJoin (1), reserved (23)
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sa/path_selector.h"

namespace ibsm::wire {

// JoinState bits (IBA 15.2.5, MCMemberRecord; SendOnlyFullMember since IBA 1.3).
namespace mc_join_state {
inline constexpr uint8_t full_member = 1 << 0;
inline constexpr uint8_t non_member = 1 << 1;
inline constexpr uint8_t send_only_non_member = 1 << 2;
inline constexpr uint8_t send_only_full_member = 1 << 3;
}  // namespace mc_join_state

namespace mc_member_record_fields {
inline constexpr Field mgid{0, 128, "MGID"};
inline constexpr Field port_gid{128, 128, "PortGID"};
inline constexpr Field q_key{256, 32, "Q_Key"};
inline constexpr Field mlid{288, 16, "MLID"};
inline constexpr Field mtu_selector{304, 2, "MTUSelector"};
inline constexpr Field mtu{306, 6, "MTU"};
inline constexpr Field tclass{312, 8, "TClass"};
inline constexpr Field p_key{320, 16, "P_Key"};
inline constexpr Field rate_selector{336, 2, "RateSelector"};
inline constexpr Field rate{338, 6, "Rate"};
inline constexpr Field packet_life_time_selector{344, 2, "PacketLifeTimeSelector"};
inline constexpr Field packet_life_time{346, 6, "PacketLifeTime"};
inline constexpr Field sl{352, 4, "SL"};
inline constexpr Field flow_label{356, 20, "FlowLabel"};
inline constexpr Field hop_limit{376, 8, "HopLimit"};
inline constexpr Field scope{384, 4, "Scope"};
inline constexpr Field join_state{388, 4, "JoinState"};
inline constexpr Field proxy_join{392, 1, "ProxyJoin"};
}  // namespace mc_member_record_fields

struct McMemberRecord {
  Gid mgid;
  Gid port_gid;
  uint32_t q_key = 0;
  Lid mlid;
  uint8_t mtu_selector = 0;
  uint8_t mtu = 0;
  uint8_t tclass = 0;
  uint16_t p_key = 0;
  uint8_t rate_selector = 0;
  uint8_t rate = 0;
  uint8_t packet_life_time_selector = 0;
  uint8_t packet_life_time = 0;
  uint8_t sl = 0;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t scope = 0;        // 4 bits
  uint8_t join_state = 0;   // mc_join_state bits
  bool proxy_join = false;
  bool operator==(const McMemberRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, McMemberRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = mc_member_record_fields;
  fn(f::mgid, x.mgid);
  fn(f::port_gid, x.port_gid);
  fn(f::q_key, x.q_key);
  fn(f::mlid, x.mlid);
  fn(f::mtu_selector, x.mtu_selector);
  fn(f::mtu, x.mtu);
  fn(f::tclass, x.tclass);
  fn(f::p_key, x.p_key);
  fn(f::rate_selector, x.rate_selector);
  fn(f::rate, x.rate);
  fn(f::packet_life_time_selector, x.packet_life_time_selector);
  fn(f::packet_life_time, x.packet_life_time);
  fn(f::sl, x.sl);
  fn(f::flow_label, x.flow_label);
  fn(f::hop_limit, x.hop_limit);
  fn(f::scope, x.scope);
  fn(f::join_state, x.join_state);
  fn(f::proxy_join, x.proxy_join);
}

// MGID ... ProxyJoin, reserved: bits 0-18.
inline constexpr auto mc_member_record_components = component_table<McMemberRecord, sa_record_size::mc_member>();

void encode(const McMemberRecord& x, std::span<uint8_t> data);
Result<McMemberRecord> decode_mc_member_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
