// Numbers of the MAD wire formats: management classes, methods, attribute
// IDs, status bits and sizes (IBA 13.4, 14.2, 15.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ibsm::wire {

// Sizes and offsets (IBA 13.4.2, 14.2.1, 15.2.1.1).
inline constexpr size_t mad_size = 256;
inline constexpr size_t mad_header_size = 24;
inline constexpr size_t smp_data_offset = 64;
inline constexpr size_t smp_data_size = 64;
inline constexpr size_t sa_data_offset = 56;
inline constexpr size_t sa_data_size = 200;
inline constexpr size_t rmpp_header_offset = 24;
inline constexpr size_t perf_data_offset = 64;  // PerfMgt (IBA 16.1.1): 40 reserved bytes first
inline constexpr uint32_t qp1_qkey = 0x80010000;  // the well-known GSI Q_Key (IBA 10.2.5)

inline constexpr uint8_t mad_base_version = 1;
inline constexpr uint8_t smp_class_version = 1;
inline constexpr uint8_t sa_class_version = 2;
inline constexpr uint8_t perf_class_version = 1;
inline constexpr uint8_t rmpp_version = 1;

// Management classes (IBA 13.4.4, table 119).
namespace mgmt_class {
inline constexpr uint8_t subn_lid_routed = 0x01;
inline constexpr uint8_t subn_adm = 0x03;  // SA
inline constexpr uint8_t perf_mgt = 0x04;
inline constexpr uint8_t board_mgt = 0x05;
inline constexpr uint8_t dev_mgt = 0x06;
inline constexpr uint8_t comm_mgt = 0x07;
inline constexpr uint8_t snmp = 0x08;
inline constexpr uint8_t vendor_range1_first = 0x09;
inline constexpr uint8_t vendor_range1_last = 0x0F;
inline constexpr uint8_t cong_mgt = 0x21;
inline constexpr uint8_t vendor_range2_first = 0x30;
inline constexpr uint8_t vendor_range2_last = 0x4F;
inline constexpr uint8_t subn_directed_route = 0x81;
}  // namespace mgmt_class

// Methods (IBA 13.4.5, table 120). The top bit is the R (response) bit.
namespace method {
inline constexpr uint8_t response_bit = 0x80;
inline constexpr uint8_t get = 0x01;
inline constexpr uint8_t set = 0x02;
inline constexpr uint8_t send = 0x03;
inline constexpr uint8_t trap = 0x05;
inline constexpr uint8_t report = 0x06;
inline constexpr uint8_t trap_repress = 0x07;
inline constexpr uint8_t get_table = 0x12;
inline constexpr uint8_t get_trace_table = 0x13;
inline constexpr uint8_t get_multi = 0x14;
inline constexpr uint8_t delete_ = 0x15;
inline constexpr uint8_t get_resp = 0x81;
inline constexpr uint8_t report_resp = 0x86;
inline constexpr uint8_t get_table_resp = 0x92;
inline constexpr uint8_t get_trace_table_resp = 0x93;
inline constexpr uint8_t get_multi_resp = 0x94;
inline constexpr uint8_t delete_resp = 0x95;
}  // namespace method

constexpr bool is_response_method(uint8_t m) { return (m & method::response_bit) != 0; }

// The method that answers `request` (IBA 13.4.5): Get and Set are answered
// with GetResp, Trap with TrapRepress (which has no R bit), the others with
// their R-bit twin. Send and responses have no answer.
constexpr std::optional<uint8_t> response_method(uint8_t request) {
  switch (request) {
    case method::get:
    case method::set: return method::get_resp;
    case method::trap: return method::trap_repress;
    case method::report: return method::report_resp;
    case method::get_table: return method::get_table_resp;
    case method::get_trace_table: return method::get_trace_table_resp;
    case method::get_multi: return method::get_multi_resp;
    case method::delete_: return method::delete_resp;
    default: return std::nullopt;
  }
}

// Attribute IDs common to all classes (IBA 13.4.8).
namespace attr {
inline constexpr uint16_t class_port_info = 0x0001;
inline constexpr uint16_t notice = 0x0002;
inline constexpr uint16_t inform_info = 0x0003;
}  // namespace attr

// Subnet management attribute IDs (IBA 14.2.5, table 145).
namespace smp_attr {
inline constexpr uint16_t notice = 0x0002;
inline constexpr uint16_t node_description = 0x0010;
inline constexpr uint16_t node_info = 0x0011;
inline constexpr uint16_t switch_info = 0x0012;
inline constexpr uint16_t guid_info = 0x0014;
inline constexpr uint16_t port_info = 0x0015;
inline constexpr uint16_t p_key_table = 0x0016;
inline constexpr uint16_t sl_to_vl_mapping_table = 0x0017;
inline constexpr uint16_t vl_arbitration_table = 0x0018;
inline constexpr uint16_t linear_forwarding_table = 0x0019;
inline constexpr uint16_t random_forwarding_table = 0x001A;
inline constexpr uint16_t multicast_forwarding_table = 0x001B;
inline constexpr uint16_t link_speed_width_pairs_table = 0x001C;
inline constexpr uint16_t vendor_specific_mads_table = 0x001D;
inline constexpr uint16_t sm_info = 0x0020;
inline constexpr uint16_t vendor_diag = 0x0030;
inline constexpr uint16_t led_info = 0x0031;
inline constexpr uint16_t port_info_extended = 0x0033;
}  // namespace smp_attr

// Subnet administration attribute IDs (IBA 15.2.5, table 195).
namespace sa_attr {
inline constexpr uint16_t class_port_info = 0x0001;
inline constexpr uint16_t notice = 0x0002;
inline constexpr uint16_t inform_info = 0x0003;
inline constexpr uint16_t node_record = 0x0011;
inline constexpr uint16_t port_info_record = 0x0012;
inline constexpr uint16_t sl_to_vl_mapping_table_record = 0x0013;
inline constexpr uint16_t switch_info_record = 0x0014;
inline constexpr uint16_t linear_forwarding_table_record = 0x0015;
inline constexpr uint16_t random_forwarding_table_record = 0x0016;
inline constexpr uint16_t multicast_forwarding_table_record = 0x0017;
inline constexpr uint16_t sm_info_record = 0x0018;
inline constexpr uint16_t link_speed_width_pairs_table_record = 0x0019;
inline constexpr uint16_t link_record = 0x0020;
inline constexpr uint16_t guid_info_record = 0x0030;
inline constexpr uint16_t service_record = 0x0031;
inline constexpr uint16_t p_key_table_record = 0x0033;
inline constexpr uint16_t path_record = 0x0035;
inline constexpr uint16_t vl_arbitration_table_record = 0x0036;
inline constexpr uint16_t mc_member_record = 0x0038;
inline constexpr uint16_t trace_record = 0x0039;
inline constexpr uint16_t multi_path_record = 0x003A;
inline constexpr uint16_t service_association_record = 0x003B;
inline constexpr uint16_t inform_info_record = 0x00F3;
}  // namespace sa_attr

// Sizes of the common class attributes (IBA 13.4.8.1, 13.4.8.3).
inline constexpr size_t class_port_info_size = 72;
inline constexpr size_t inform_info_size = 36;

// SA record sizes in bytes, as the IBA tables lay the records out (IBA 15.2.5);
// a multi-record answer pads each to sa_attr_offset_words(size) * 8 bytes.
namespace sa_record_size {
inline constexpr size_t node = 108;  // LID, NodeInfo, NodeDescription
inline constexpr size_t port_info = 68;  // EndportLID, PortNum, Options, PortInfo
inline constexpr size_t sl_to_vl_mapping_table = 16;
inline constexpr size_t switch_info = 24;
inline constexpr size_t linear_forwarding_table = 72;
inline constexpr size_t multicast_forwarding_table = 72;
inline constexpr size_t sm_info = 25;  // LID, reserved, SMInfo (21 bytes)
inline constexpr size_t link = 6;  // FromLID, FromPort, ToPort, ToLID
inline constexpr size_t guid_info = 72;
inline constexpr size_t service = 176;
inline constexpr size_t p_key_table = 72;
inline constexpr size_t path = 64;
inline constexpr size_t vl_arbitration_table = 72;
inline constexpr size_t mc_member = 52;
inline constexpr size_t multi_path_fixed = 24;  // before its list of GIDs
inline constexpr size_t inform_info = 60;
}  // namespace sa_record_size

// MAD Status (IBA 13.4.7, table 121): bits 0-1 flags, bits 2-4 a code,
// bits 8-15 class specific.
namespace mad_status {
inline constexpr uint16_t ok = 0x0000;
inline constexpr uint16_t busy = 0x0001;
inline constexpr uint16_t redirect = 0x0002;
inline constexpr uint16_t bad_version = 1 << 2;  // base or class version unsupported
inline constexpr uint16_t method_unsupported = 2 << 2;
inline constexpr uint16_t method_attr_unsupported = 3 << 2;
inline constexpr uint16_t invalid_field = 7 << 2;  // one or more attribute fields invalid
inline constexpr uint16_t code_mask = 7 << 2;
// Directed-route SMPs (IBA 14.2.1.2) carry the D bit in the top bit of the
// status word; the status proper is the low 15 bits.
inline constexpr uint16_t dr_direction_bit = 0x8000;
inline constexpr uint16_t dr_status_mask = 0x7FFF;
}  // namespace mad_status

// SA class-specific status, in bits 8-15 of the status word (IBA 15.2.1.1, table 187).
namespace sa_status {
inline constexpr uint16_t no_resources = 1 << 8;
inline constexpr uint16_t req_invalid = 2 << 8;
inline constexpr uint16_t no_records = 3 << 8;
inline constexpr uint16_t too_many_records = 4 << 8;
inline constexpr uint16_t req_gid_invalid = 5 << 8;
inline constexpr uint16_t req_insufficient_components = 6 << 8;
inline constexpr uint16_t req_denied = 7 << 8;
}  // namespace sa_status

// Directed route (IBA 14.2.2).
inline constexpr int max_dr_hops = 63;
inline constexpr uint16_t permissive_lid = 0xFFFF;

}  // namespace ibsm::wire
