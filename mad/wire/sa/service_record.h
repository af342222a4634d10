// ServiceRecord (IBA 15.2.5, attribute 0x0031): a service a port registers
// with the SA, kept for its lease.
//
//  bytes 0-7 ServiceID   8-23 ServiceGID   24-25 ServiceP_Key   26-27 reserved
//  bytes 28-31 ServiceLease (seconds; 0xFFFFFFFF forever)   32-47 ServiceKey
//  bytes 48-111 ServiceName (UTF-8, NUL padded)
//  bytes 112-127 ServiceData8[16]   128-143 ServiceData16[8]
//  bytes 144-159 ServiceData32[4]   160-175 ServiceData64[2]
// Every ServiceData element is a component of its own.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

inline constexpr uint32_t service_lease_infinite = 0xFFFFFFFF;
inline constexpr size_t service_name_size = 64;
inline constexpr size_t service_key_size = 16;

namespace service_record_fields {
inline constexpr Field service_id{0, 64, "ServiceID"};
inline constexpr Field service_gid{64, 128, "ServiceGID"};
inline constexpr Field service_p_key{192, 16, "ServiceP_Key"};
inline constexpr Field service_lease{224, 32, "ServiceLease"};
inline constexpr Field service_key{256, 128, "ServiceKey"};
inline constexpr Field service_name{384, 512, "ServiceName"};
constexpr Field data8(size_t i) { return {static_cast<uint16_t>(896 + 8 * i), 8, "ServiceData8"}; }
constexpr Field data16(size_t i) { return {static_cast<uint16_t>(1024 + 16 * i), 16, "ServiceData16"}; }
constexpr Field data32(size_t i) { return {static_cast<uint16_t>(1152 + 32 * i), 32, "ServiceData32"}; }
constexpr Field data64(size_t i) { return {static_cast<uint16_t>(1280 + 64 * i), 64, "ServiceData64"}; }
}  // namespace service_record_fields

struct ServiceRecord {
  uint64_t service_id = 0;
  Gid service_gid;
  uint16_t service_p_key = 0;
  uint32_t service_lease = 0;
  std::array<uint8_t, service_key_size> service_key{};
  std::array<uint8_t, service_name_size> service_name{};  // as on the wire; name()/set_name() convert
  std::array<uint8_t, 16> data8{};
  std::array<uint16_t, 8> data16{};
  std::array<uint32_t, 4> data32{};
  std::array<uint64_t, 2> data64{};

  std::string name() const;
  void set_name(std::string_view text);
  bool operator==(const ServiceRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, ServiceRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = service_record_fields;
  fn(f::service_id, x.service_id);
  fn(f::service_gid, x.service_gid);
  fn(f::service_p_key, x.service_p_key);
  fn(f::service_lease, x.service_lease);
  fn(f::service_key, x.service_key);
  fn(f::service_name, x.service_name);
  for (size_t i = 0; i < x.data8.size(); ++i) fn(f::data8(i), x.data8[i]);
  for (size_t i = 0; i < x.data16.size(); ++i) fn(f::data16(i), x.data16[i]);
  for (size_t i = 0; i < x.data32.size(); ++i) fn(f::data32(i), x.data32[i]);
  for (size_t i = 0; i < x.data64.size(); ++i) fn(f::data64(i), x.data64[i]);
}

// ServiceID, ServiceGID, ServiceP_Key, reserved, ServiceLease, ServiceKey,
// ServiceName (bits 0-6), ServiceData8.1-16 (7-22), ServiceData16.1-8
// (23-30), ServiceData32.1-4 (31-34), ServiceData64.1-2 (35-36).
inline constexpr auto service_record_components = component_table<ServiceRecord, sa_record_size::service>();

void encode(const ServiceRecord& x, std::span<uint8_t> data);
Result<ServiceRecord> decode_service_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
