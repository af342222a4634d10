// SwitchInfo (IBA 14.2.5.4, table 148): 20 bytes of SMP data.
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t switch_info_size = 20;

namespace switch_info_fields {
inline constexpr Field linear_fdb_cap{0, 16, "LinearFDBCap"};
inline constexpr Field random_fdb_cap{16, 16, "RandomFDBCap"};
inline constexpr Field multicast_fdb_cap{32, 16, "MulticastFDBCap"};
inline constexpr Field linear_fdb_top{48, 16, "LinearFDBTop"};
inline constexpr Field default_port{64, 8, "DefaultPort"};
inline constexpr Field default_multicast_primary_port{72, 8, "DefaultMulticastPrimaryPort"};
inline constexpr Field default_multicast_not_primary_port{80, 8, "DefaultMulticastNotPrimaryPort"};
inline constexpr Field life_time_value{88, 5, "LifeTimeValue"};
inline constexpr Field port_state_change{93, 1, "PortStateChange"};
inline constexpr Field optimized_sl_to_vl_mapping_programming{94, 2, "OptimizedSLtoVLMappingProgramming"};
inline constexpr Field lids_per_port{96, 16, "LIDsPerPort"};
inline constexpr Field partition_enforcement_cap{112, 16, "PartitionEnforcementCap"};
inline constexpr Field inbound_enforcement_cap{128, 1, "InboundEnforcementCap"};
inline constexpr Field outbound_enforcement_cap{129, 1, "OutboundEnforcementCap"};
inline constexpr Field filter_raw_inbound_cap{130, 1, "FilterRawInboundCap"};
inline constexpr Field filter_raw_outbound_cap{131, 1, "FilterRawOutboundCap"};
inline constexpr Field enhanced_port0{132, 1, "EnhancedPort0"};
inline constexpr Field multicast_fdb_top{144, 16, "MulticastFDBTop"};
}  // namespace switch_info_fields

struct SwitchInfo {
  uint16_t linear_fdb_cap = 0;
  uint16_t random_fdb_cap = 0;
  uint16_t multicast_fdb_cap = 0;
  uint16_t linear_fdb_top = 0;
  uint8_t default_port = 0;
  uint8_t default_multicast_primary_port = 0;
  uint8_t default_multicast_not_primary_port = 0;
  uint8_t life_time_value = 0;  // 5 bits
  bool port_state_change = false;
  uint8_t optimized_sl_to_vl_mapping_programming = 0;  // 2 bits
  uint16_t lids_per_port = 0;
  uint16_t partition_enforcement_cap = 0;
  bool inbound_enforcement_cap = false;
  bool outbound_enforcement_cap = false;
  bool filter_raw_inbound_cap = false;
  bool filter_raw_outbound_cap = false;
  bool enhanced_port0 = false;
  uint16_t multicast_fdb_top = 0;
  bool operator==(const SwitchInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SwitchInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = switch_info_fields;
  fn(f::linear_fdb_cap, x.linear_fdb_cap);
  fn(f::random_fdb_cap, x.random_fdb_cap);
  fn(f::multicast_fdb_cap, x.multicast_fdb_cap);
  fn(f::linear_fdb_top, x.linear_fdb_top);
  fn(f::default_port, x.default_port);
  fn(f::default_multicast_primary_port, x.default_multicast_primary_port);
  fn(f::default_multicast_not_primary_port, x.default_multicast_not_primary_port);
  fn(f::life_time_value, x.life_time_value);
  fn(f::port_state_change, x.port_state_change);
  fn(f::optimized_sl_to_vl_mapping_programming, x.optimized_sl_to_vl_mapping_programming);
  fn(f::lids_per_port, x.lids_per_port);
  fn(f::partition_enforcement_cap, x.partition_enforcement_cap);
  fn(f::inbound_enforcement_cap, x.inbound_enforcement_cap);
  fn(f::outbound_enforcement_cap, x.outbound_enforcement_cap);
  fn(f::filter_raw_inbound_cap, x.filter_raw_inbound_cap);
  fn(f::filter_raw_outbound_cap, x.filter_raw_outbound_cap);
  fn(f::enhanced_port0, x.enhanced_port0);
  fn(f::multicast_fdb_top, x.multicast_fdb_top);
}

void encode(const SwitchInfo& x, std::span<uint8_t> data);
Result<SwitchInfo> decode_switch_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
