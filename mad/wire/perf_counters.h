// Performance Management (IBA 16.1): the PMA's PortCounters (16.1.3.5,
// table 249) and PortCountersExtended (16.1.4.11, table 262), and the
// PerfMgt ClassPortInfo capability bits (16.1.2). A PerfMgt MAD is a GMP
// whose attribute data starts at byte 64 (40 reserved bytes after the
// header); both attributes address a port by PortSelect (0xFF: all ports,
// if ClassPortInfo says AllPortSelect is supported) and choose counters to
// clear in a Set by CounterSelect.
//
// PortCounters (bytes from the data start):
//  0 reserved  1 PortSelect  2-3 CounterSelect  4-5 SymbolErrorCounter
//  6 LinkErrorRecoveryCounter  7 LinkDownedCounter  8-9 PortRcvErrors
//  10-11 PortRcvRemotePhysicalErrors  12-13 PortRcvSwitchRelayErrors
//  14-15 PortXmitDiscards  16 PortXmitConstraintErrors
//  17 PortRcvConstraintErrors  18 CounterSelect2
//  19 LocalLinkIntegrityErrors (4) ExcessiveBufferOverrunErrors (4)
//  20-21 reserved  22-23 VL15Dropped  24-27 PortXmitData  28-31 PortRcvData
//  32-35 PortXmitPkts  36-39 PortRcvPkts  40-43 PortXmitWait
// PortCountersExtended:
//  0 reserved  1 PortSelect  2-3 CounterSelect  4-7 reserved
//  8 PortXmitData  16 PortRcvData  24 PortXmitPkts  32 PortRcvPkts
//  40 PortUnicastXmitPkts  48 PortUnicastRcvPkts
//  56 PortMulticastXmitPkts  64 PortMulticastRcvPkts (64 bits each)
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/constants.h"
#include "mad/wire/field_codec.h"
#include "mad/wire/mad_header.h"

namespace ibsm::wire {

// PerfMgt attribute IDs (IBA 16.1.2, table 242).
namespace perf_attr {
inline constexpr uint16_t class_port_info = 0x0001;
inline constexpr uint16_t port_counters = 0x0012;
inline constexpr uint16_t port_counters_extended = 0x001D;
}  // namespace perf_attr

// PerfMgt ClassPortInfo:CapabilityMask bits (IBA 16.1.2, table 243).
namespace perf_cap {
inline constexpr uint16_t all_port_select = 1 << 8;
inline constexpr uint16_t extended_width = 1 << 9;           // PortCountersExtended supported
inline constexpr uint16_t extended_width_no_ietf = 1 << 10;  // ... without the IETF counters
inline constexpr uint16_t port_counters_xmit_wait = 1 << 12;
}  // namespace perf_cap

inline constexpr uint8_t perf_all_ports = 0xFF;  // PortSelect: every port (AllPortSelect)
inline constexpr size_t port_counters_size = 44;
inline constexpr size_t port_counters_extended_size = 72;

// PortCounters:CounterSelect, one bit per counter to clear in a Set (IBA
// 16.1.3.5); CounterSelect2 bit 0 is PortXmitWait.
namespace counter_select {
inline constexpr uint16_t symbol_errors = 1 << 0;
inline constexpr uint16_t link_error_recovery = 1 << 1;
inline constexpr uint16_t link_downed = 1 << 2;
inline constexpr uint16_t rcv_errors = 1 << 3;
inline constexpr uint16_t rcv_remote_physical_errors = 1 << 4;
inline constexpr uint16_t rcv_switch_relay_errors = 1 << 5;
inline constexpr uint16_t xmit_discards = 1 << 6;
inline constexpr uint16_t xmit_constraint_errors = 1 << 7;
inline constexpr uint16_t rcv_constraint_errors = 1 << 8;
inline constexpr uint16_t local_link_integrity_errors = 1 << 9;
inline constexpr uint16_t excessive_buffer_overrun_errors = 1 << 10;
inline constexpr uint16_t vl15_dropped = 1 << 11;
inline constexpr uint16_t xmit_data = 1 << 12;
inline constexpr uint16_t rcv_data = 1 << 13;
inline constexpr uint16_t xmit_pkts = 1 << 14;
inline constexpr uint16_t rcv_pkts = 1 << 15;
inline constexpr uint16_t all = 0xFFFF;
}  // namespace counter_select

namespace port_counters_fields {
inline constexpr Field port_select{8, 8, "PortSelect"};
inline constexpr Field counter_select{16, 16, "CounterSelect"};
inline constexpr Field symbol_errors{32, 16, "SymbolErrorCounter"};
inline constexpr Field link_error_recovery{48, 8, "LinkErrorRecoveryCounter"};
inline constexpr Field link_downed{56, 8, "LinkDownedCounter"};
inline constexpr Field rcv_errors{64, 16, "PortRcvErrors"};
inline constexpr Field rcv_remote_physical_errors{80, 16, "PortRcvRemotePhysicalErrors"};
inline constexpr Field rcv_switch_relay_errors{96, 16, "PortRcvSwitchRelayErrors"};
inline constexpr Field xmit_discards{112, 16, "PortXmitDiscards"};
inline constexpr Field xmit_constraint_errors{128, 8, "PortXmitConstraintErrors"};
inline constexpr Field rcv_constraint_errors{136, 8, "PortRcvConstraintErrors"};
inline constexpr Field counter_select2{144, 8, "CounterSelect2"};
inline constexpr Field local_link_integrity_errors{152, 4, "LocalLinkIntegrityErrors"};
inline constexpr Field excessive_buffer_overrun_errors{156, 4, "ExcessiveBufferOverrunErrors"};
inline constexpr Field vl15_dropped{176, 16, "VL15Dropped"};
inline constexpr Field xmit_data{192, 32, "PortXmitData"};
inline constexpr Field rcv_data{224, 32, "PortRcvData"};
inline constexpr Field xmit_pkts{256, 32, "PortXmitPkts"};
inline constexpr Field rcv_pkts{288, 32, "PortRcvPkts"};
inline constexpr Field xmit_wait{320, 32, "PortXmitWait"};
}  // namespace port_counters_fields

struct PortCounters {
  uint8_t port_select = 0;
  uint16_t counter_select = 0;
  uint16_t symbol_errors = 0;
  uint8_t link_error_recovery = 0;
  uint8_t link_downed = 0;
  uint16_t rcv_errors = 0;
  uint16_t rcv_remote_physical_errors = 0;
  uint16_t rcv_switch_relay_errors = 0;
  uint16_t xmit_discards = 0;
  uint8_t xmit_constraint_errors = 0;
  uint8_t rcv_constraint_errors = 0;
  uint8_t counter_select2 = 0;
  uint8_t local_link_integrity_errors = 0;      // 4 bits
  uint8_t excessive_buffer_overrun_errors = 0;  // 4 bits
  uint16_t vl15_dropped = 0;
  uint32_t xmit_data = 0;  // in units of 4 octets (IBA 16.1.3.5)
  uint32_t rcv_data = 0;
  uint32_t xmit_pkts = 0;
  uint32_t rcv_pkts = 0;
  uint32_t xmit_wait = 0;
  bool operator==(const PortCounters&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PortCounters>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = port_counters_fields;
  fn(f::port_select, x.port_select);
  fn(f::counter_select, x.counter_select);
  fn(f::symbol_errors, x.symbol_errors);
  fn(f::link_error_recovery, x.link_error_recovery);
  fn(f::link_downed, x.link_downed);
  fn(f::rcv_errors, x.rcv_errors);
  fn(f::rcv_remote_physical_errors, x.rcv_remote_physical_errors);
  fn(f::rcv_switch_relay_errors, x.rcv_switch_relay_errors);
  fn(f::xmit_discards, x.xmit_discards);
  fn(f::xmit_constraint_errors, x.xmit_constraint_errors);
  fn(f::rcv_constraint_errors, x.rcv_constraint_errors);
  fn(f::counter_select2, x.counter_select2);
  fn(f::local_link_integrity_errors, x.local_link_integrity_errors);
  fn(f::excessive_buffer_overrun_errors, x.excessive_buffer_overrun_errors);
  fn(f::vl15_dropped, x.vl15_dropped);
  fn(f::xmit_data, x.xmit_data);
  fn(f::rcv_data, x.rcv_data);
  fn(f::xmit_pkts, x.xmit_pkts);
  fn(f::rcv_pkts, x.rcv_pkts);
  fn(f::xmit_wait, x.xmit_wait);
}

namespace port_counters_extended_fields {
inline constexpr Field port_select{8, 8, "PortSelect"};
inline constexpr Field counter_select{16, 16, "CounterSelect"};
inline constexpr Field xmit_data{64, 64, "PortXmitData"};
inline constexpr Field rcv_data{128, 64, "PortRcvData"};
inline constexpr Field xmit_pkts{192, 64, "PortXmitPkts"};
inline constexpr Field rcv_pkts{256, 64, "PortRcvPkts"};
inline constexpr Field unicast_xmit_pkts{320, 64, "PortUnicastXmitPkts"};
inline constexpr Field unicast_rcv_pkts{384, 64, "PortUnicastRcvPkts"};
inline constexpr Field multicast_xmit_pkts{448, 64, "PortMulticastXmitPkts"};
inline constexpr Field multicast_rcv_pkts{512, 64, "PortMulticastRcvPkts"};
}  // namespace port_counters_extended_fields

struct PortCountersExtended {
  uint8_t port_select = 0;
  uint16_t counter_select = 0;  // bit 0 PortXmitData .. bit 7 PortMulticastRcvPkts
  uint64_t xmit_data = 0;       // in units of 4 octets
  uint64_t rcv_data = 0;
  uint64_t xmit_pkts = 0;
  uint64_t rcv_pkts = 0;
  uint64_t unicast_xmit_pkts = 0;
  uint64_t unicast_rcv_pkts = 0;
  uint64_t multicast_xmit_pkts = 0;
  uint64_t multicast_rcv_pkts = 0;
  bool operator==(const PortCountersExtended&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PortCountersExtended>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = port_counters_extended_fields;
  fn(f::port_select, x.port_select);
  fn(f::counter_select, x.counter_select);
  fn(f::xmit_data, x.xmit_data);
  fn(f::rcv_data, x.rcv_data);
  fn(f::xmit_pkts, x.xmit_pkts);
  fn(f::rcv_pkts, x.rcv_pkts);
  fn(f::unicast_xmit_pkts, x.unicast_xmit_pkts);
  fn(f::unicast_rcv_pkts, x.unicast_rcv_pkts);
  fn(f::multicast_xmit_pkts, x.multicast_xmit_pkts);
  fn(f::multicast_rcv_pkts, x.multicast_rcv_pkts);
}

// One counter of PortCounters: where it sits and the CounterSelect bit that
// clears it in a Set (IBA 16.1.3.5). A counter stops at its maximum (all
// ones in its width) until it is cleared.
struct PortCounterSpec {
  Field field;
  uint16_t select = 0;
  constexpr uint64_t max() const { return field.bit_width >= 64 ? ~uint64_t{0} : (uint64_t{1} << field.bit_width) - 1; }
};

// The twelve error counters, in wire order: a port whose errors climb is one
// of these going up between two reads.
inline constexpr size_t port_error_counter_count = 12;
inline constexpr std::array<PortCounterSpec, port_error_counter_count> port_error_counters{{
    {port_counters_fields::symbol_errors, counter_select::symbol_errors},
    {port_counters_fields::link_error_recovery, counter_select::link_error_recovery},
    {port_counters_fields::link_downed, counter_select::link_downed},
    {port_counters_fields::rcv_errors, counter_select::rcv_errors},
    {port_counters_fields::rcv_remote_physical_errors, counter_select::rcv_remote_physical_errors},
    {port_counters_fields::rcv_switch_relay_errors, counter_select::rcv_switch_relay_errors},
    {port_counters_fields::xmit_discards, counter_select::xmit_discards},
    {port_counters_fields::xmit_constraint_errors, counter_select::xmit_constraint_errors},
    {port_counters_fields::rcv_constraint_errors, counter_select::rcv_constraint_errors},
    {port_counters_fields::local_link_integrity_errors, counter_select::local_link_integrity_errors},
    {port_counters_fields::excessive_buffer_overrun_errors, counter_select::excessive_buffer_overrun_errors},
    {port_counters_fields::vl15_dropped, counter_select::vl15_dropped},
}};

// The four data counters (32 bits here; 64 in PortCountersExtended).
inline constexpr size_t port_data_counter_count = 4;
inline constexpr std::array<PortCounterSpec, port_data_counter_count> port_data_counters{{
    {port_counters_fields::xmit_data, counter_select::xmit_data},
    {port_counters_fields::rcv_data, counter_select::rcv_data},
    {port_counters_fields::xmit_pkts, counter_select::xmit_pkts},
    {port_counters_fields::rcv_pkts, counter_select::rcv_pkts},
}};

void encode(const PortCounters& x, std::span<uint8_t> data);
Result<PortCounters> decode_port_counters(std::span<const uint8_t> data);
void encode(const PortCountersExtended& x, std::span<uint8_t> data);
Result<PortCountersExtended> decode_port_counters_extended(std::span<const uint8_t> data);

// A PerfMgt request (class 0x04, version 1) with an empty data area; the
// dispatcher fills in the TID. The caller encodes the attribute at
// perf_data(mad).
MadBuffer build_perf_mad(uint8_t method, uint16_t attr_id, uint32_t attr_mod = 0);
inline std::span<uint8_t> perf_data(MadBuffer& mad) { return std::span(mad).subspan(perf_data_offset); }
inline std::span<const uint8_t> perf_data(const MadBuffer& mad) { return std::span(mad).subspan(perf_data_offset); }

}  // namespace ibsm::wire
