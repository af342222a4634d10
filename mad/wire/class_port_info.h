// ClassPortInfo (IBA 13.4.8.1): what a class agent supports and where to send
// its requests (redirection) and traps. 72 bytes; the SA answers it too.
//
//  byte 0 BaseVersion   1 ClassVersion   2-3 CapabilityMask
//  bytes 4-7 CapabilityMask2 (27), RespTimeValue (5)   8-23 RedirectGID
//  bytes 24-27 RedirectTC (8), RedirectSL (4), RedirectFL (20)
//  bytes 28-29 RedirectLID   30-31 RedirectP_Key   32-35 reserved (8), RedirectQP (24)
//  bytes 36-39 RedirectQ_Key   40-55 TrapGID   56-59 TrapTC (8), TrapSL (4), TrapFL (20)
//  bytes 60-61 TrapLID   62-63 TrapP_Key   64-67 TrapHL (8), TrapQP (24)   68-71 TrapQ_Key
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

// CapabilityMask bits every class shares (IBA 13.4.8.1).
namespace class_cap {
inline constexpr uint16_t is_trap_supported = 1 << 0;
inline constexpr uint16_t is_get_set_supported = 1 << 1;
inline constexpr uint16_t is_cap_mask2_supported = 1 << 2;
}  // namespace class_cap

// The SA's class-specific CapabilityMask bits (IBA 15.2.1.1).
namespace sa_cap {
inline constexpr uint16_t is_subnet_opt_rec_supported = 1 << 8;
inline constexpr uint16_t is_ud_multicast_supported = 1 << 9;
inline constexpr uint16_t is_multi_path_supported = 1 << 10;
inline constexpr uint16_t is_reinit_supported = 1 << 11;
inline constexpr uint16_t is_gid_scoped_multi_path_supported = 1 << 12;
inline constexpr uint16_t is_port_info_capability_mask_match_supported = 1 << 13;
inline constexpr uint16_t is_link_speed_width_pairs_record_supported = 1 << 14;
inline constexpr uint16_t is_pa_services_supported = 1 << 15;
}  // namespace sa_cap

// The SA's CapabilityMask2 bits (IBA 15.2.1.1).
namespace sa_cap2 {
inline constexpr uint32_t is_unpath_repath_supported = 1 << 0;
inline constexpr uint32_t is_qos_supported = 1 << 1;
inline constexpr uint32_t is_reverse_path_p_key_member_bit_supported = 1 << 2;
inline constexpr uint32_t is_mcast_top_supported = 1 << 3;
inline constexpr uint32_t is_hierarchy_info_supported = 1 << 4;
inline constexpr uint32_t is_additional_guid_supported = 1 << 5;
inline constexpr uint32_t is_full_port_info_record_supported = 1 << 6;
inline constexpr uint32_t is_extended_speeds_supported = 1 << 7;
inline constexpr uint32_t is_multicast_service_record_supported = 1 << 8;
inline constexpr uint32_t is_port_info_capability_mask2_match_supported = 1 << 10;
}  // namespace sa_cap2

namespace class_port_info_fields {
inline constexpr Field base_version{0, 8, "BaseVersion"};
inline constexpr Field class_version{8, 8, "ClassVersion"};
inline constexpr Field capability_mask{16, 16, "CapabilityMask"};
inline constexpr Field capability_mask2{32, 27, "CapabilityMask2"};
inline constexpr Field resp_time_value{59, 5, "RespTimeValue"};
inline constexpr Field redirect_gid{64, 128, "RedirectGID"};
inline constexpr Field redirect_tc{192, 8, "RedirectTC"};
inline constexpr Field redirect_sl{200, 4, "RedirectSL"};
inline constexpr Field redirect_fl{204, 20, "RedirectFL"};
inline constexpr Field redirect_lid{224, 16, "RedirectLID"};
inline constexpr Field redirect_p_key{240, 16, "RedirectP_Key"};
inline constexpr Field redirect_qp{264, 24, "RedirectQP"};
inline constexpr Field redirect_q_key{288, 32, "RedirectQ_Key"};
inline constexpr Field trap_gid{320, 128, "TrapGID"};
inline constexpr Field trap_tc{448, 8, "TrapTC"};
inline constexpr Field trap_sl{456, 4, "TrapSL"};
inline constexpr Field trap_fl{460, 20, "TrapFL"};
inline constexpr Field trap_lid{480, 16, "TrapLID"};
inline constexpr Field trap_p_key{496, 16, "TrapP_Key"};
inline constexpr Field trap_hop_limit{512, 8, "TrapHL"};
inline constexpr Field trap_qp{520, 24, "TrapQP"};
inline constexpr Field trap_q_key{544, 32, "TrapQ_Key"};
}  // namespace class_port_info_fields

struct ClassPortInfo {
  uint8_t base_version = mad_base_version;
  uint8_t class_version = 0;
  uint16_t capability_mask = 0;
  uint32_t capability_mask2 = 0;  // 27 bits
  uint8_t resp_time_value = 0;    // 5 bits
  Gid redirect_gid;
  uint8_t redirect_tc = 0;
  uint8_t redirect_sl = 0;
  uint32_t redirect_fl = 0;       // 20 bits
  Lid redirect_lid;
  uint16_t redirect_p_key = 0;
  uint32_t redirect_qp = 0;       // 24 bits
  uint32_t redirect_q_key = 0;
  Gid trap_gid;
  uint8_t trap_tc = 0;
  uint8_t trap_sl = 0;
  uint32_t trap_fl = 0;           // 20 bits
  Lid trap_lid;
  uint16_t trap_p_key = 0;
  uint8_t trap_hop_limit = 0;
  uint32_t trap_qp = 0;           // 24 bits
  uint32_t trap_q_key = 0;
  bool operator==(const ClassPortInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, ClassPortInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = class_port_info_fields;
  fn(f::base_version, x.base_version);
  fn(f::class_version, x.class_version);
  fn(f::capability_mask, x.capability_mask);
  fn(f::capability_mask2, x.capability_mask2);
  fn(f::resp_time_value, x.resp_time_value);
  fn(f::redirect_gid, x.redirect_gid);
  fn(f::redirect_tc, x.redirect_tc);
  fn(f::redirect_sl, x.redirect_sl);
  fn(f::redirect_fl, x.redirect_fl);
  fn(f::redirect_lid, x.redirect_lid);
  fn(f::redirect_p_key, x.redirect_p_key);
  fn(f::redirect_qp, x.redirect_qp);
  fn(f::redirect_q_key, x.redirect_q_key);
  fn(f::trap_gid, x.trap_gid);
  fn(f::trap_tc, x.trap_tc);
  fn(f::trap_sl, x.trap_sl);
  fn(f::trap_fl, x.trap_fl);
  fn(f::trap_lid, x.trap_lid);
  fn(f::trap_p_key, x.trap_p_key);
  fn(f::trap_hop_limit, x.trap_hop_limit);
  fn(f::trap_qp, x.trap_qp);
  fn(f::trap_q_key, x.trap_q_key);
}

void encode(const ClassPortInfo& x, std::span<uint8_t> data);
Result<ClassPortInfo> decode_class_port_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
