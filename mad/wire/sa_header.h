// Subnet administration MADs (IBA 15.2.1.1, figure 193): the common header,
// the RMPP header, then the SA header and 200 bytes of SA data.
//
//  bytes 0-23  common MAD header     bytes 24-35 RMPP header (rmpp.h)
//  bytes 36-43 SM_Key                bytes 44-45 AttributeOffset (8-byte words), 46-47 reserved
//  bytes 48-55 ComponentMask         bytes 56-255 SA data (records)
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/wire/constants.h"
#include "mad/wire/field_codec.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/rmpp.h"

namespace ibsm::wire {

namespace sa_fields {
inline constexpr Field sm_key{288, 64, "SM_Key"};
inline constexpr Field attribute_offset{352, 16, "AttributeOffset"};
inline constexpr Field component_mask{384, 64, "ComponentMask"};
inline constexpr Field data{448, 1600, "SAData"};
}  // namespace sa_fields

struct SaHeader {
  uint64_t sm_key = 0;
  uint16_t attr_offset = 0;  // record size in 8-byte words, for multi-record answers
  uint64_t component_mask = 0;
  bool operator==(const SaHeader&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, SaHeader>
constexpr void visit_fields(Self& h, Fn&& fn) {
  fn(sa_fields::sm_key, h.sm_key);
  fn(sa_fields::attribute_offset, h.attr_offset);
  fn(sa_fields::component_mask, h.component_mask);
}

// The AttributeOffset of records of `record_bytes` bytes (IBA 15.2.1.1:
// records are padded to a multiple of 8 bytes).
constexpr uint16_t sa_attr_offset_words(size_t record_bytes) {
  return static_cast<uint16_t>((record_bytes + 7) / 8);
}

// A whole SA MAD.
struct SaMad {
  MadHeader header{.mgmt_class = mgmt_class::subn_adm, .class_version = sa_class_version};
  RmppHeader rmpp;
  SaHeader sa;
  std::array<uint8_t, sa_data_size> data{};
  bool operator==(const SaMad&) const = default;
};

// Writes bytes 36-55 of `mad`; reads them back (rejecting a MAD shorter than 56 bytes).
void encode(const SaHeader& h, std::span<uint8_t> mad);
Result<SaHeader> decode_sa_header(std::span<const uint8_t> mad);

// All 256 bytes, reserved ones as zero.
void encode(const SaMad& m, std::span<uint8_t> mad);
// Reads any 256-byte buffer as an SA MAD, with no checks beyond its size.
Result<SaMad> decode_sa_mad(std::span<const uint8_t> mad);
// Validates and reads an SA MAD: 256 bytes, base version 1, class 0x03, class
// version 2, RMPP version 0 or 1, and RMPP type and flags that agree (an
// active transfer has a type, an inactive one none). A rejection names the reason.
Result<SaMad> parse_sa_mad(std::span<const uint8_t> mad);

// The SA data of a whole MAD, to encode records into or decode them from.
inline std::span<uint8_t> sa_data(MadBuffer& mad) { return std::span(mad).subspan(sa_data_offset, sa_data_size); }
inline std::span<const uint8_t> sa_data(const MadBuffer& mad) {
  return std::span(mad).subspan(sa_data_offset, sa_data_size);
}

}  // namespace ibsm::wire
