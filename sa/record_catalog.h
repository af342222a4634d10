// Every SA record type by name, for a client that works on raw records: the
// attribute, the record size and the component table (ComponentMask bit
// order, IBA 15.2.5). Names are saquery's where it has them, with its short
// aliases (NR, PIR, ...), so operators can type what they already know.
//
// With the table, one generic code path filters (FIELD=VALUE sets the bits of
// the component and its mask bit) and prints any record, field by field.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/base/status.h"
#include "mad/wire/gid_text.h"
#include "mad/wire/sa/component_mask.h"

namespace ibsm::sa {

struct RecordType {
  std::string_view name;   // "NodeRecord"
  std::string_view alias;  // "NR"
  uint16_t attribute = 0;
  size_t size = 0;         // bytes of one record
  std::span<const wire::Component> components;  // empty: no ComponentMask (ClassPortInfo, InformInfo)
};

std::span<const RecordType> record_types();
// By name or alias, case-insensitive; nullptr if there is none.
const RecordType* find_record_type(std::string_view name);

// The component called `name` (case-insensitive, reserved ones excluded).
const wire::Component* find_component(const RecordType& type, std::string_view name);

// Writes `value` into `record` at `component`: a number (decimal or 0x hex)
// for fields up to 64 bits, a GID (IPv6 form, e.g. fe80::2c9:300:0:1) for
// 128-bit ones, text for NodeDescription/ServiceName, hex bytes otherwise.
Status set_component(std::span<uint8_t> record, const wire::Component& component, std::string_view value);

// The field as text: a number (hex for GUIDs, keys and 64-bit fields,
// decimal otherwise), a GID, text, or hex bytes; `json` quotes what JSON
// cannot hold as a number.
std::string format_component(std::span<const uint8_t> record, const wire::Component& component, bool json);

// GIDs as text: mad/wire/gid_text.h.
using wire::format_gid;
using wire::parse_gid;

}  // namespace ibsm::sa
