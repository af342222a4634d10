// The common MAD header (IBA 13.4.2, figure 144): the first 24 bytes of every
// MAD, SMPs and GMPs alike.
//
//  byte 0 BaseVersion | 1 MgmtClass | 2 ClassVersion | 3 R + Method
//  bytes 4-5 Status   | 6-7 ClassSpecific
//  bytes 8-15 TransactionID
//  bytes 16-17 AttributeID | 18-19 reserved | 20-23 AttributeModifier
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/constants.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

// Every MAD on the wire is exactly 256 bytes (IBA 13.4.1).
using MadBuffer = std::array<uint8_t, mad_size>;

namespace mad_fields {
inline constexpr Field base_version{0, 8, "BaseVersion"};
inline constexpr Field mgmt_class{8, 8, "MgmtClass"};
inline constexpr Field class_version{16, 8, "ClassVersion"};
inline constexpr Field method{24, 8, "Method"};  // R bit and method together
inline constexpr Field response_bit{24, 1, "R"};
inline constexpr Field method_code{25, 7, "Method"};  // without the R bit
inline constexpr Field status{32, 16, "Status"};
inline constexpr Field class_specific{48, 16, "ClassSpecific"};
inline constexpr Field transaction_id{64, 64, "TransactionID"};
inline constexpr Field attribute_id{128, 16, "AttributeID"};
inline constexpr Field attribute_modifier{160, 32, "AttributeModifier"};
}  // namespace mad_fields

struct MadHeader {
  uint8_t base_version = mad_base_version;
  uint8_t mgmt_class = 0;
  uint8_t class_version = 0;
  uint8_t method = 0;  // with the R bit: GetResp is 0x81
  uint16_t status = 0;
  uint16_t class_specific = 0;
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;

  bool is_response() const { return is_response_method(method); }
  bool operator==(const MadHeader&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, MadHeader>
constexpr void visit_fields(Self& h, Fn&& fn) {
  fn(mad_fields::base_version, h.base_version);
  fn(mad_fields::mgmt_class, h.mgmt_class);
  fn(mad_fields::class_version, h.class_version);
  fn(mad_fields::method, h.method);
  fn(mad_fields::status, h.status);
  fn(mad_fields::class_specific, h.class_specific);
  fn(mad_fields::transaction_id, h.tid);
  fn(mad_fields::attribute_id, h.attr_id);
  fn(mad_fields::attribute_modifier, h.attr_mod);
}

// Writes the 24 header bytes (the reserved ones as zero) of `mad`.
void encode(const MadHeader& h, std::span<uint8_t> mad);
// Reads the header; only rejects a buffer shorter than 24 bytes.
Result<MadHeader> decode_mad_header(std::span<const uint8_t> mad);

// Validates a general management packet (any class but the two SMP classes):
// 256 bytes, base version 1. Class-specific checks belong to the class's own
// parser (parse_sa_mad). A rejection names the reason.
Result<MadHeader> parse_gmp(std::span<const uint8_t> mad);

}  // namespace ibsm::wire
