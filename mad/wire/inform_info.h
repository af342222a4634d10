// InformInfo (IBA 13.4.8.3): a subscription to traps or notices, sent to a
// class manager (the SA for subnet traps) with Set. 36 bytes.
//
//  bytes 0-15 GID   16-17 LIDRangeBegin   18-19 LIDRangeEnd   20-21 reserved
//  byte 22 IsGeneric   23 Subscribe   24-25 Type   26-27 TrapNumber | DeviceID
//  bytes 28-31 QPN (24), reserved (3), RespTimeValue (5)
//  byte 32 reserved   33-35 ProducerType | VendorID
//
// Like Notice, two forms share the bits: a generic subscription names a
// TrapNumber and a ProducerType, a vendor-specific one a DeviceID and a
// VendorID. The struct holds the bits once; the accessors name both forms.
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

// LIDRangeBegin 0xFFFF: every LID (IBA 13.4.8.3).
inline constexpr uint16_t inform_all_lids = 0xFFFF;
// TrapNumber, Type and ProducerType wildcards: "all" (IBA 13.4.8.3).
inline constexpr uint16_t inform_all_trap_numbers = 0xFFFF;
inline constexpr uint16_t inform_all_types = 0xFFFF;
inline constexpr uint32_t inform_all_producer_types = 0xFFFFFF;

namespace inform_info_fields {
inline constexpr Field gid{0, 128, "GID"};
inline constexpr Field lid_range_begin{128, 16, "LIDRangeBegin"};
inline constexpr Field lid_range_end{144, 16, "LIDRangeEnd"};
inline constexpr Field is_generic{176, 8, "IsGeneric"};
inline constexpr Field subscribe{184, 8, "Subscribe"};
inline constexpr Field type{192, 16, "Type"};
inline constexpr Field trap_number{208, 16, "TrapNumber"};
inline constexpr Field device_id{208, 16, "DeviceID"};  // the vendor form of TrapNumber
inline constexpr Field qpn{224, 24, "QPN"};
inline constexpr Field resp_time_value{251, 5, "RespTimeValue"};
inline constexpr Field producer_type{264, 24, "ProducerType"};
inline constexpr Field vendor_id{264, 24, "VendorID"};  // the vendor form of ProducerType
}  // namespace inform_info_fields

struct InformInfo {
  Gid gid;                  // the one port subscribed to, or zero for the LID range
  Lid lid_range_begin;
  Lid lid_range_end;
  uint8_t is_generic = 1;
  uint8_t subscribe = 1;    // 1 subscribe, 0 unsubscribe
  uint16_t type = 0;        // notice_type, or inform_all_types
  uint16_t trap_number = 0; // generic: TrapNumber; vendor: DeviceID
  uint32_t qpn = 0;         // 24 bits
  uint8_t resp_time_value = 0;  // 5 bits
  uint32_t producer_type = 0;   // 24 bits; generic: ProducerType; vendor: VendorID

  bool generic() const { return is_generic != 0; }
  uint16_t device_id() const { return trap_number; }
  void set_device_id(uint16_t id) { trap_number = id; }
  uint32_t vendor_id() const { return producer_type; }
  void set_vendor_id(uint32_t id) { producer_type = id & 0xFFFFFF; }
  bool operator==(const InformInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, InformInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = inform_info_fields;
  fn(f::gid, x.gid);
  fn(f::lid_range_begin, x.lid_range_begin);
  fn(f::lid_range_end, x.lid_range_end);
  fn(f::is_generic, x.is_generic);
  fn(f::subscribe, x.subscribe);
  fn(f::type, x.type);
  fn(f::trap_number, x.trap_number);
  fn(f::qpn, x.qpn);
  fn(f::resp_time_value, x.resp_time_value);
  fn(f::producer_type, x.producer_type);
}

void encode(const InformInfo& x, std::span<uint8_t> data);
Result<InformInfo> decode_inform_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
