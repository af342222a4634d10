// PortInfo (IBA 14.2.5.6, table 152): 64 bytes of SMP data, every field of
// IBA 1.3 plus the XDR extended speeds (LinkSpeedExt*2) of IBA 1.7.
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t port_info_size = 64;

namespace port_info_fields {
inline constexpr Field m_key{0, 64, "M_Key"};
inline constexpr Field gid_prefix{64, 64, "GidPrefix"};
inline constexpr Field lid{128, 16, "LID"};
inline constexpr Field master_sm_lid{144, 16, "MasterSMLID"};
inline constexpr Field capability_mask{160, 32, "CapabilityMask"};
inline constexpr Field diag_code{192, 16, "DiagCode"};
inline constexpr Field m_key_lease_period{208, 16, "M_KeyLeasePeriod"};
inline constexpr Field local_port_num{224, 8, "LocalPortNum"};
inline constexpr Field link_width_enabled{232, 8, "LinkWidthEnabled"};
inline constexpr Field link_width_supported{240, 8, "LinkWidthSupported"};
inline constexpr Field link_width_active{248, 8, "LinkWidthActive"};
inline constexpr Field link_speed_supported{256, 4, "LinkSpeedSupported"};
inline constexpr Field port_state{260, 4, "PortState"};
inline constexpr Field port_phys_state{264, 4, "PortPhysicalState"};
inline constexpr Field link_down_default_state{268, 4, "LinkDownDefaultState"};
inline constexpr Field m_key_protect_bits{272, 2, "M_KeyProtectBits"};
inline constexpr Field lmc{277, 3, "LMC"};
inline constexpr Field link_speed_active{280, 4, "LinkSpeedActive"};
inline constexpr Field link_speed_enabled{284, 4, "LinkSpeedEnabled"};
inline constexpr Field neighbor_mtu{288, 4, "NeighborMTU"};
inline constexpr Field master_sm_sl{292, 4, "MasterSMSL"};
inline constexpr Field vl_cap{296, 4, "VLCap"};
inline constexpr Field init_type{300, 4, "InitType"};
inline constexpr Field vl_high_limit{304, 8, "VLHighLimit"};
inline constexpr Field vl_arbitration_high_cap{312, 8, "VLArbitrationHighCap"};
inline constexpr Field vl_arbitration_low_cap{320, 8, "VLArbitrationLowCap"};
inline constexpr Field init_type_reply{328, 4, "InitTypeReply"};
inline constexpr Field mtu_cap{332, 4, "MTUCap"};
inline constexpr Field vl_stall_count{336, 3, "VLStallCount"};
inline constexpr Field hoq_life{339, 5, "HOQLife"};
inline constexpr Field operational_vls{344, 4, "OperationalVLs"};
inline constexpr Field partition_enforcement_inbound{348, 1, "PartitionEnforcementInbound"};
inline constexpr Field partition_enforcement_outbound{349, 1, "PartitionEnforcementOutbound"};
inline constexpr Field filter_raw_inbound{350, 1, "FilterRawInbound"};
inline constexpr Field filter_raw_outbound{351, 1, "FilterRawOutbound"};
inline constexpr Field m_key_violations{352, 16, "M_KeyViolations"};
inline constexpr Field p_key_violations{368, 16, "P_KeyViolations"};
inline constexpr Field q_key_violations{384, 16, "Q_KeyViolations"};
inline constexpr Field guid_cap{400, 8, "GUIDCap"};
inline constexpr Field client_reregister{408, 1, "ClientReregister"};
inline constexpr Field multicast_pkey_trap_suppression_enabled{409, 2, "MulticastPKeyTrapSuppressionEnabled"};
inline constexpr Field subnet_timeout{411, 5, "SubnetTimeOut"};
inline constexpr Field resp_time_value{419, 5, "RespTimeValue"};
inline constexpr Field local_phy_errors{424, 4, "LocalPhyErrors"};
inline constexpr Field overrun_errors{428, 4, "OverrunErrors"};
inline constexpr Field max_credit_hint{432, 16, "MaxCreditHint"};
inline constexpr Field link_speed_ext_active2{449, 2, "LinkSpeedExtActive2"};
inline constexpr Field link_speed_ext_supported2{451, 2, "LinkSpeedExtSupported2"};
inline constexpr Field link_speed_ext_enabled2{453, 3, "LinkSpeedExtEnabled2"};
inline constexpr Field link_round_trip_latency{456, 24, "LinkRoundTripLatency"};
inline constexpr Field capability_mask2{480, 16, "CapabilityMask2"};
inline constexpr Field link_speed_ext_active{496, 4, "LinkSpeedExtActive"};
inline constexpr Field link_speed_ext_supported{500, 4, "LinkSpeedExtSupported"};
inline constexpr Field link_speed_ext_enabled{507, 5, "LinkSpeedExtEnabled"};
}  // namespace port_info_fields

// PortInfo:CapabilityMask bits (IBA 14.2.5.6, table 153), the ones the SM reads.
namespace port_cap {
inline constexpr uint32_t is_sm = 1u << 1;
inline constexpr uint32_t is_notice_supported = 1u << 2;
inline constexpr uint32_t is_trap_supported = 1u << 3;
inline constexpr uint32_t is_sl_mapping_supported = 1u << 6;  // SLtoVLMappingTable exists
inline constexpr uint32_t is_sm_disabled = 1u << 10;
inline constexpr uint32_t is_extended_speeds_supported = 1u << 14;
inline constexpr uint32_t is_capability_mask2_supported = 1u << 15;
inline constexpr uint32_t is_client_reregistration_supported = 1u << 25;
inline constexpr uint32_t is_multicast_fdb_top_supported = 1u << 30;
}  // namespace port_cap

struct PortInfo {
  uint64_t m_key = 0;
  uint64_t gid_prefix = 0;
  Lid lid;
  Lid master_sm_lid;
  uint32_t capability_mask = 0;
  uint16_t diag_code = 0;
  uint16_t m_key_lease_period = 0;
  uint8_t local_port_num = 0;
  uint8_t link_width_enabled = 0;
  uint8_t link_width_supported = 0;
  uint8_t link_width_active = 0;
  uint8_t link_speed_supported = 0;
  PortState port_state = PortState::no_change;
  PhysState port_phys_state = PhysState::no_change;
  uint8_t link_down_default_state = 0;
  uint8_t m_key_protect_bits = 0;
  uint8_t lmc = 0;
  uint8_t link_speed_active = 0;
  uint8_t link_speed_enabled = 0;
  uint8_t neighbor_mtu = 0;
  uint8_t master_sm_sl = 0;
  uint8_t vl_cap = 0;
  uint8_t init_type = 0;
  uint8_t vl_high_limit = 0;
  uint8_t vl_arbitration_high_cap = 0;
  uint8_t vl_arbitration_low_cap = 0;
  uint8_t init_type_reply = 0;
  uint8_t mtu_cap = 0;
  uint8_t vl_stall_count = 0;
  uint8_t hoq_life = 0;
  uint8_t operational_vls = 0;
  bool partition_enforcement_inbound = false;
  bool partition_enforcement_outbound = false;
  bool filter_raw_inbound = false;
  bool filter_raw_outbound = false;
  uint16_t m_key_violations = 0;
  uint16_t p_key_violations = 0;
  uint16_t q_key_violations = 0;
  uint8_t guid_cap = 0;
  bool client_reregister = false;
  uint8_t multicast_pkey_trap_suppression_enabled = 0;
  uint8_t subnet_timeout = 0;
  uint8_t resp_time_value = 0;
  uint8_t local_phy_errors = 0;
  uint8_t overrun_errors = 0;
  uint16_t max_credit_hint = 0;
  uint8_t link_speed_ext_active2 = 0;
  uint8_t link_speed_ext_supported2 = 0;
  uint8_t link_speed_ext_enabled2 = 0;
  uint32_t link_round_trip_latency = 0;  // 24 bits
  uint16_t capability_mask2 = 0;
  uint8_t link_speed_ext_active = 0;
  uint8_t link_speed_ext_supported = 0;
  uint8_t link_speed_ext_enabled = 0;
  bool operator==(const PortInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PortInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = port_info_fields;
  fn(f::m_key, x.m_key);
  fn(f::gid_prefix, x.gid_prefix);
  fn(f::lid, x.lid);
  fn(f::master_sm_lid, x.master_sm_lid);
  fn(f::capability_mask, x.capability_mask);
  fn(f::diag_code, x.diag_code);
  fn(f::m_key_lease_period, x.m_key_lease_period);
  fn(f::local_port_num, x.local_port_num);
  fn(f::link_width_enabled, x.link_width_enabled);
  fn(f::link_width_supported, x.link_width_supported);
  fn(f::link_width_active, x.link_width_active);
  fn(f::link_speed_supported, x.link_speed_supported);
  fn(f::port_state, x.port_state);
  fn(f::port_phys_state, x.port_phys_state);
  fn(f::link_down_default_state, x.link_down_default_state);
  fn(f::m_key_protect_bits, x.m_key_protect_bits);
  fn(f::lmc, x.lmc);
  fn(f::link_speed_active, x.link_speed_active);
  fn(f::link_speed_enabled, x.link_speed_enabled);
  fn(f::neighbor_mtu, x.neighbor_mtu);
  fn(f::master_sm_sl, x.master_sm_sl);
  fn(f::vl_cap, x.vl_cap);
  fn(f::init_type, x.init_type);
  fn(f::vl_high_limit, x.vl_high_limit);
  fn(f::vl_arbitration_high_cap, x.vl_arbitration_high_cap);
  fn(f::vl_arbitration_low_cap, x.vl_arbitration_low_cap);
  fn(f::init_type_reply, x.init_type_reply);
  fn(f::mtu_cap, x.mtu_cap);
  fn(f::vl_stall_count, x.vl_stall_count);
  fn(f::hoq_life, x.hoq_life);
  fn(f::operational_vls, x.operational_vls);
  fn(f::partition_enforcement_inbound, x.partition_enforcement_inbound);
  fn(f::partition_enforcement_outbound, x.partition_enforcement_outbound);
  fn(f::filter_raw_inbound, x.filter_raw_inbound);
  fn(f::filter_raw_outbound, x.filter_raw_outbound);
  fn(f::m_key_violations, x.m_key_violations);
  fn(f::p_key_violations, x.p_key_violations);
  fn(f::q_key_violations, x.q_key_violations);
  fn(f::guid_cap, x.guid_cap);
  fn(f::client_reregister, x.client_reregister);
  fn(f::multicast_pkey_trap_suppression_enabled, x.multicast_pkey_trap_suppression_enabled);
  fn(f::subnet_timeout, x.subnet_timeout);
  fn(f::resp_time_value, x.resp_time_value);
  fn(f::local_phy_errors, x.local_phy_errors);
  fn(f::overrun_errors, x.overrun_errors);
  fn(f::max_credit_hint, x.max_credit_hint);
  fn(f::link_speed_ext_active2, x.link_speed_ext_active2);
  fn(f::link_speed_ext_supported2, x.link_speed_ext_supported2);
  fn(f::link_speed_ext_enabled2, x.link_speed_ext_enabled2);
  fn(f::link_round_trip_latency, x.link_round_trip_latency);
  fn(f::capability_mask2, x.capability_mask2);
  fn(f::link_speed_ext_active, x.link_speed_ext_active);
  fn(f::link_speed_ext_supported, x.link_speed_ext_supported);
  fn(f::link_speed_ext_enabled, x.link_speed_ext_enabled);
}

void encode(const PortInfo& x, std::span<uint8_t> data);
Result<PortInfo> decode_port_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
