// The Notice attribute (IBA 13.4.8.2, figure 155; SMP traps 14.2.5.1): what a
// Trap or Report carries. Offsets are from the start of the attribute.
//
//  byte 0 IsGeneric (1 bit) + Type (7)   bytes 1-3 ProducerType (generic) or VendorID
//  bytes 4-5 TrapNumber (generic) or DeviceID   bytes 6-7 IssuerLID
//  bytes 8-9 NoticeToggle (1 bit) + NoticeCount (15)
//  bytes 10-63 DataDetails   bytes 64-79 IssuerGID
//
// In an SMP (64 bytes of data) the notice ends before IssuerGID; in an SA
// Report it is whole.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t notice_size = 80;
inline constexpr size_t notice_size_without_gid = 64;  // a notice in an SMP
inline constexpr size_t notice_details_size = 54;

// Notice Type (IBA 13.4.8.2).
namespace notice_type {
inline constexpr uint8_t fatal = 0;
inline constexpr uint8_t urgent = 1;
inline constexpr uint8_t security = 2;
inline constexpr uint8_t subnet_management = 3;
inline constexpr uint8_t info = 4;
inline constexpr uint8_t empty = 0x7F;
}  // namespace notice_type

// Generic notices' ProducerType (IBA 13.4.8.2, table 123).
namespace producer_type {
inline constexpr uint32_t channel_adapter = 1;
inline constexpr uint32_t switch_ = 2;
inline constexpr uint32_t router = 3;
inline constexpr uint32_t class_manager = 4;
}  // namespace producer_type

// Generic trap numbers (IBA 14.2.5.1, table 146; 15.2.5.x for the SA's).
namespace trap_number {
inline constexpr uint16_t gid_in_service = 64;
inline constexpr uint16_t gid_out_of_service = 65;
inline constexpr uint16_t mcast_group_created = 66;
inline constexpr uint16_t mcast_group_deleted = 67;
inline constexpr uint16_t link_state_change = 128;
inline constexpr uint16_t local_link_integrity_threshold = 129;
inline constexpr uint16_t excessive_buffer_overrun_threshold = 130;
inline constexpr uint16_t flow_control_update_watchdog = 131;
inline constexpr uint16_t capability_mask_change = 144;
inline constexpr uint16_t system_image_guid_change = 145;
inline constexpr uint16_t bad_m_key = 256;
inline constexpr uint16_t bad_p_key = 257;
inline constexpr uint16_t bad_q_key = 258;
inline constexpr uint16_t bad_p_key_switch_external_port = 259;
}  // namespace trap_number

namespace notice_fields {
inline constexpr Field is_generic{0, 1, "IsGeneric"};
inline constexpr Field type{1, 7, "Type"};
inline constexpr Field producer_type{8, 24, "ProducerType/VendorID"};
inline constexpr Field trap_number{32, 16, "TrapNumber/DeviceID"};
inline constexpr Field issuer_lid{48, 16, "IssuerLID"};
inline constexpr Field notice_toggle{64, 1, "NoticeToggle"};
inline constexpr Field notice_count{65, 15, "NoticeCount"};
inline constexpr Field data_details{80, 432, "DataDetails"};
inline constexpr Field issuer_gid{512, 128, "IssuerGID"};
// Inside DataDetails, for the traps that carry them (IBA 14.2.5.1).
inline constexpr Field trap128_lid{80, 16, "LIDADDR"};  // traps 128-131: the reporting port's LID
inline constexpr Field trap144_lid{96, 16, "LIDADDR"};
inline constexpr Field trap144_capability_mask{128, 32, "CapabilityMask"};
// Trap 256, Bad M_Key (IBA 14.2.5.1, table 149; the layout of OpenSM's and
// Linux's ntc_256): "Bad M_Key, <M_Key> from <LIDADDR> attempted <Method>
// with <AttributeID> and <AttributeModifier>". LIDADDR is the requester's
// LID; for a directed-route SMP DRSLID and the return path (DRNotice set)
// say where it came from.
inline constexpr Field trap256_lid{96, 16, "LIDADDR"};
inline constexpr Field trap256_dr_slid{112, 16, "DRSLID"};
inline constexpr Field trap256_method{128, 8, "Method"};
inline constexpr Field trap256_attribute_id{144, 16, "AttributeID"};
inline constexpr Field trap256_attribute_modifier{160, 32, "AttributeModifier"};
inline constexpr Field trap256_m_key{192, 64, "M_Key"};
inline constexpr Field trap256_dr_notice{264, 1, "DRNotice"};
inline constexpr Field trap256_dr_path_truncated{265, 1, "DRPathTruncated"};
inline constexpr Field trap256_dr_hop_count{266, 6, "DRHopCount"};
inline constexpr Field trap256_dr_return_path{272, 240, "DRNoticeReturnPath"};
inline constexpr size_t trap256_return_path_hops = 30;
}  // namespace notice_fields

struct Notice {
  bool is_generic = true;
  uint8_t type = notice_type::info;
  uint32_t producer_type = 0;  // generic: ProducerType; vendor: VendorID (24 bits)
  uint16_t trap_number = 0;    // generic: TrapNumber; vendor: DeviceID
  Lid issuer_lid;
  bool notice_toggle = false;
  uint16_t notice_count = 0;   // 15 bits
  std::array<uint8_t, notice_details_size> data_details{};
  Gid issuer_gid;              // only in notices of 80 bytes (not in SMPs)
  bool operator==(const Notice&) const = default;
};

// Every field but IssuerGID, which encode/decode handle by buffer size.
template <typename Self, typename Fn>
  requires same_struct<Self, Notice>
constexpr void visit_fields(Self& n, Fn&& fn) {
  fn(notice_fields::is_generic, n.is_generic);
  fn(notice_fields::type, n.type);
  fn(notice_fields::producer_type, n.producer_type);
  fn(notice_fields::trap_number, n.trap_number);
  fn(notice_fields::issuer_lid, n.issuer_lid);
  fn(notice_fields::notice_toggle, n.notice_toggle);
  fn(notice_fields::notice_count, n.notice_count);
  fn(notice_fields::data_details, n.data_details);
}

// Writes the notice into `data`: 80 bytes with IssuerGID when `data` holds
// them, else the first 64 (an SMP's data). `data` must hold at least 64.
void encode(const Notice& n, std::span<uint8_t> data);
// Reads a notice; rejects fewer than 64 bytes. IssuerGID is read when 80
// bytes are there, else left zero.
Result<Notice> decode_notice(std::span<const uint8_t> data);

}  // namespace ibsm::wire
