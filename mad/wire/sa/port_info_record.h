// PortInfoRecord (IBA 15.2.5, attribute 0x0012): one port's PortInfo.
//
//  bytes 0-1 EndportLID   2 PortNum   3 Options   4-67 PortInfo (port_info.h)
//
// Options (IBA 1.3) was a reserved byte before; component bit 2 either way.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/port_info.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::wire {

namespace port_info_record_fields {
inline constexpr Field endport_lid{0, 16, "EndportLID"};
inline constexpr Field port_num{16, 8, "PortNum"};
inline constexpr Field options{24, 8, "Options"};
inline constexpr size_t port_info_offset = 4;
}  // namespace port_info_record_fields

struct PortInfoRecord {
  Lid endport_lid;
  uint8_t port_num = 0;
  uint8_t options = 0;
  PortInfo port_info;
  bool operator==(const PortInfoRecord&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, PortInfoRecord>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = port_info_record_fields;
  fn(f::endport_lid, x.endport_lid);
  fn(f::port_num, x.port_num);
  fn(f::options, x.options);
  visit_embedded(x.port_info, f::port_info_offset, fn);
}

// IBA 1.3 keeps PortInfo byte 56 reserved (one component): the XDR speed
// fields IBA 1.7 put there are no components of their own.
inline constexpr std::array port_info_record_rows{
    Field{(port_info_record_fields::port_info_offset + 56) * 8, 8, "Reserved"}};

// EndportLID, PortNum, Options, then PortInfo's fields and reserved rows: bits 0-57.
inline constexpr auto port_info_record_components =
    component_table<PortInfoRecord, sa_record_size::port_info, port_info_record_rows>();

void encode(const PortInfoRecord& x, std::span<uint8_t> data);
Result<PortInfoRecord> decode_port_info_record(std::span<const uint8_t> data);

}  // namespace ibsm::wire
