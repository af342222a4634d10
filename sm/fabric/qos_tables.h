// OpenSM's QoS table templates, as its config keys spell them (qos_sl2vl,
// qos_vlarb_high, qos_vlarb_low, qos_high_limit, qos_max_vls and their
// per-port-class variants qos_ca_*, qos_sw0_*, qos_swe_*, qos_rtr_*), and
// the tables one class of ports gets from them. Pure text parsing: the
// config reads the keys, the sweep programs the tables (sm/sweep/vl_programming.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "mad/base/status.h"

namespace ibsm {

// One (VL, weight) entry of a VL arbitration table (IBA 7.6.9, 14.2.5.9).
struct VlWeight {
  uint8_t vl = 0;
  uint8_t weight = 0;
  bool operator==(const VlWeight&) const = default;
};

// A VLArbitrationTable template: up to 64 entries (two blocks of 32).
inline constexpr size_t vlarb_template_entries = 64;
using VlArbTemplate = std::array<VlWeight, vlarb_template_entries>;
// An SL2VL template: the VL of each SL 0-15 (VL15: drop packets on that SL).
using Sl2VlTemplate = std::array<uint8_t, 16>;

// OpenSM's OSM_DEFAULT_QOS_* values: VL0 high priority, VL1-14 low
// priority with equal weights, SL i to VL i but SL15 to VL7.
inline constexpr std::string_view default_qos_vlarb_high = "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0";
inline constexpr std::string_view default_qos_vlarb_low = "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4";
inline constexpr std::string_view default_qos_sl2vl = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7";
inline constexpr uint8_t default_qos_max_vls = 15;
inline constexpr uint8_t default_qos_high_limit = 0;

// "VL:weight,VL:weight,..." (at most 64 entries; VL 0-15, weight 0-255);
// the entries not given are VL0 weight 0, which the arbiter skips.
Result<VlArbTemplate> parse_vlarb_template(std::string_view text);
// "VL,VL,...": exactly 16 VLs 0-15, for SL0 to SL15.
Result<Sl2VlTemplate> parse_sl2vl_template(std::string_view text);

// The QoS keys of one port class as the config file gives them; unset
// values (max_vls 0, high_limit -1, empty strings) fall back to the
// general qos_* keys, and those to OpenSM's defaults.
struct QosClassKeys {
  uint8_t max_vls = 0;
  int16_t high_limit = -1;
  std::string vlarb_high;
  std::string vlarb_low;
  std::string sl2vl;
  bool operator==(const QosClassKeys&) const = default;
};

// The port classes OpenSM configures separately: CA ports, switch port 0
// (an enhanced one), switch external ports, router ports.
enum class QosPortClass : uint8_t { ca, sw0, swe, rtr };

// What one class of ports gets.
struct QosClassTables {
  uint8_t max_vls = default_qos_max_vls;
  uint8_t high_limit = default_qos_high_limit;  // PortInfo:VLHighLimit
  VlArbTemplate vlarb_high{};
  VlArbTemplate vlarb_low{};
  Sl2VlTemplate sl2vl{};
  bool operator==(const QosClassTables&) const = default;
};

// The tables of a class from its keys and the general ones (each value:
// the class's, else the general one, else OpenSM's default). The strings
// were checked when the config was read; one that does not parse here
// falls back as if unset.
QosClassTables resolve_qos_class(const QosClassKeys& cls, const QosClassKeys& general);

// The tables for every class at once (by QosPortClass).
struct QosTables {
  std::array<QosClassTables, 4> by_class;
  const QosClassTables& of(QosPortClass c) const { return by_class[static_cast<size_t>(c)]; }
  bool operator==(const QosTables&) const = default;
};

}  // namespace ibsm
