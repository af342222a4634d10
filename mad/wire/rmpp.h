// The RMPP header (IBA 13.6.2.1, figure 174): bytes 24-35 of a MAD of a class
// that uses RMPP (the SA among them). Offsets here are from the MAD start.
//
//  byte 24 RMPPVersion | 25 RMPPType | 26 RRespTime (5 bits) + RMPPFlags (3) | 27 RMPPStatus
//  bytes 28-31 Data1: SegmentNumber (DATA, ACK)
//  bytes 32-35 Data2: PayloadLength (DATA) or NewWindowLast (ACK)
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

namespace rmpp_type {
inline constexpr uint8_t none = 0;
inline constexpr uint8_t data = 1;
inline constexpr uint8_t ack = 2;
inline constexpr uint8_t stop = 3;
inline constexpr uint8_t abort = 4;
}  // namespace rmpp_type

// RMPPFlags bits (IBA 13.6.2.1).
namespace rmpp_flag {
inline constexpr uint8_t active = 1 << 0;
inline constexpr uint8_t first = 1 << 1;
inline constexpr uint8_t last = 1 << 2;
}  // namespace rmpp_flag

// RMPPStatus codes (IBA 13.6.2.1, table 176).
namespace rmpp_status {
inline constexpr uint8_t normal = 0;
inline constexpr uint8_t resources_exhausted = 1;
inline constexpr uint8_t total_time_too_long = 118;
inline constexpr uint8_t inconsistent_last_and_payload_length = 119;
inline constexpr uint8_t inconsistent_first_and_segment_number = 120;
inline constexpr uint8_t bad_rmpp_type = 121;
inline constexpr uint8_t new_window_last_too_small = 122;
inline constexpr uint8_t segment_number_too_big = 123;
inline constexpr uint8_t illegal_status = 124;
inline constexpr uint8_t unsupported_version = 125;
inline constexpr uint8_t too_many_retries = 126;
inline constexpr uint8_t unspecified = 127;
}  // namespace rmpp_status

namespace rmpp_fields {
inline constexpr Field version{192, 8, "RMPPVersion"};
inline constexpr Field type{200, 8, "RMPPType"};
inline constexpr Field resp_time{208, 5, "RRespTime"};
inline constexpr Field flags{213, 3, "RMPPFlags"};
inline constexpr Field status{216, 8, "RMPPStatus"};
inline constexpr Field data1{224, 32, "Data1"};
inline constexpr Field data2{256, 32, "Data2"};
// Data1 and Data2 by their meaning.
inline constexpr Field segment_number{224, 32, "SegmentNumber"};
inline constexpr Field payload_length{256, 32, "PayloadLength"};
inline constexpr Field new_window_last{256, 32, "NewWindowLast"};
}  // namespace rmpp_fields

struct RmppHeader {
  uint8_t version = 0;
  uint8_t type = rmpp_type::none;
  uint8_t resp_time = 0;  // RRespTime, 5 bits
  uint8_t flags = 0;      // rmpp_flag bits
  uint8_t status = 0;
  uint32_t data1 = 0;     // SegmentNumber
  uint32_t data2 = 0;     // PayloadLength (DATA) or NewWindowLast (ACK)

  bool active() const { return (flags & rmpp_flag::active) != 0; }
  bool first() const { return (flags & rmpp_flag::first) != 0; }
  bool last() const { return (flags & rmpp_flag::last) != 0; }
  uint32_t segment_number() const { return data1; }
  uint32_t payload_length() const { return data2; }
  uint32_t new_window_last() const { return data2; }
  bool operator==(const RmppHeader&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, RmppHeader>
constexpr void visit_fields(Self& h, Fn&& fn) {
  fn(rmpp_fields::version, h.version);
  fn(rmpp_fields::type, h.type);
  fn(rmpp_fields::resp_time, h.resp_time);
  fn(rmpp_fields::flags, h.flags);
  fn(rmpp_fields::status, h.status);
  fn(rmpp_fields::data1, h.data1);
  fn(rmpp_fields::data2, h.data2);
}

inline constexpr size_t rmpp_header_end = 36;  // bytes of MAD header + RMPP header

// Writes bytes 24-35 of `mad`; reads them back (rejecting a MAD shorter than 36 bytes).
void encode(const RmppHeader& h, std::span<uint8_t> mad);
Result<RmppHeader> decode_rmpp_header(std::span<const uint8_t> mad);

}  // namespace ibsm::wire
