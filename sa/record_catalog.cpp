#include "sa/record_catalog.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "mad/base/text.h"
#include "mad/wire/constants.h"
#include "mad/wire/field.h"
#include "mad/wire/sa_records.h"

namespace ibsm::sa {
namespace {

namespace sz = wire::sa_record_size;

// ClassPortInfo and InformInfo are attributes, not records: no
// ComponentMask, but the same table serves to print them.
inline constexpr auto class_port_info_components = wire::component_table<wire::ClassPortInfo, wire::class_port_info_size>();
inline constexpr auto inform_info_components = wire::component_table<wire::InformInfo, wire::inform_info_size>();

const std::array kTypes{
    RecordType{"ClassPortInfo", "CPI", wire::sa_attr::class_port_info, wire::class_port_info_size, class_port_info_components},
    RecordType{"NodeRecord", "NR", wire::sa_attr::node_record, sz::node, wire::node_record_components},
    RecordType{"PortInfoRecord", "PIR", wire::sa_attr::port_info_record, sz::port_info, wire::port_info_record_components},
    RecordType{"SL2VLTableRecord", "SL2VL", wire::sa_attr::sl_to_vl_mapping_table_record, sz::sl_to_vl_mapping_table,
               wire::sl_to_vl_table_record_components},
    RecordType{"PKeyTableRecord", "PKTR", wire::sa_attr::p_key_table_record, sz::p_key_table, wire::p_key_table_record_components},
    RecordType{"VLArbitrationTableRecord", "VLAR", wire::sa_attr::vl_arbitration_table_record, sz::vl_arbitration_table,
               wire::vl_arbitration_table_record_components},
    RecordType{"InformInfoRecord", "IIR", wire::sa_attr::inform_info_record, sz::inform_info, wire::inform_info_record_components},
    RecordType{"InformInfo", "II", wire::sa_attr::inform_info, wire::inform_info_size, inform_info_components},
    RecordType{"LinkRecord", "LR", wire::sa_attr::link_record, sz::link, wire::link_record_components},
    RecordType{"ServiceRecord", "SR", wire::sa_attr::service_record, sz::service, wire::service_record_components},
    RecordType{"PathRecord", "PR", wire::sa_attr::path_record, sz::path, wire::path_record_components},
    RecordType{"MultiPathRecord", "MPR", wire::sa_attr::multi_path_record, sz::multi_path_fixed, wire::multi_path_record_components},
    RecordType{"MCMemberRecord", "MCMR", wire::sa_attr::mc_member_record, sz::mc_member, wire::mc_member_record_components},
    RecordType{"LFTRecord", "LFTR", wire::sa_attr::linear_forwarding_table_record, sz::linear_forwarding_table,
               wire::lft_record_components},
    RecordType{"MFTRecord", "MFTR", wire::sa_attr::multicast_forwarding_table_record, sz::multicast_forwarding_table,
               wire::mft_record_components},
    RecordType{"GUIDInfoRecord", "GIR", wire::sa_attr::guid_info_record, sz::guid_info, wire::guid_info_record_components},
    RecordType{"SwitchInfoRecord", "SWIR", wire::sa_attr::switch_info_record, sz::switch_info, wire::switch_info_record_components},
    RecordType{"SMInfoRecord", "SMIR", wire::sa_attr::sm_info_record, sz::sm_info, wire::sm_info_record_components},
};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}
bool is_text(const wire::Field& f) {
  return f.bit_width > 64 && (contains(f.name, "Description") || contains(f.name, "Name") || contains(f.name, "String"));
}
bool is_gid(const wire::Field& f) { return f.bit_width == 128 && contains(f.name, "GID"); }
// Identifiers read best in hex, as the diag tools print them; LIDs, ports
// and counts in decimal.
bool is_hex(const wire::Field& f) {
  return f.bit_width == 64 || contains(f.name, "GUID") || contains(f.name, "Key") || contains(f.name, "Mask") ||
         (ends_with(f.name, "ID") && !ends_with(f.name, "LID")) || contains(f.name, "Data");
}

Result<uint64_t> parse_number(std::string_view s) {
  const auto v = parse_unsigned(s, Notation::decimal_or_hex);
  if (!v) return invalid_argument_error("not a number");
  return *v;
}

}  // namespace

std::span<const RecordType> record_types() { return kTypes; }

const RecordType* find_record_type(std::string_view name) {
  for (const RecordType& t : kTypes)
    if (iequals(t.name, name) || iequals(t.alias, name)) return &t;
  return nullptr;
}

const wire::Component* find_component(const RecordType& type, std::string_view name) {
  for (const wire::Component& c : type.components)
    if (c.field.name != "Reserved" && iequals(c.field.name, name)) return &c;
  return nullptr;
}

Status set_component(std::span<uint8_t> record, const wire::Component& c, std::string_view value) {
  const wire::Field& f = c.field;
  if (!wire::field_fits(record.size(), f)) return invalid_argument_error(fmt::format("{} is outside the record", f.name));
  if (f.bit_width <= 64) {
    auto v = parse_number(value);
    if (!v.ok()) return invalid_argument_error(fmt::format("{}: '{}' is not a number", f.name, value));
    if (f.bit_width < 64 && (*v >> f.bit_width) != 0)
      return invalid_argument_error(fmt::format("{}: {} does not fit {} bits", f.name, value, f.bit_width));
    wire::set_field(record, f, *v);
    return {};
  }
  if (!f.byte_aligned()) return invalid_argument_error(fmt::format("{} cannot be set from text", f.name));
  auto bytes = record.subspan(f.byte_offset(), f.byte_size());
  std::fill(bytes.begin(), bytes.end(), uint8_t{0});
  if (is_gid(f)) {
    auto gid = parse_gid(value);
    if (!gid.ok()) return invalid_argument_error(fmt::format("{}: {}", f.name, gid.status().message()));
    std::copy(gid->begin(), gid->end(), bytes.begin());
    return {};
  }
  if (is_text(f)) {
    if (value.size() > bytes.size()) return invalid_argument_error(fmt::format("{}: longer than {} bytes", f.name, bytes.size()));
    std::copy(value.begin(), value.end(), bytes.begin());
    return {};
  }
  // Hex bytes, most significant first.
  std::string_view hex = value.substr(0, 2) == "0x" ? value.substr(2) : value;
  if (hex.size() % 2 != 0 || hex.size() / 2 > bytes.size())
    return invalid_argument_error(fmt::format("{}: want up to {} hex bytes", f.name, bytes.size()));
  for (size_t i = 0; i < hex.size() / 2; ++i) {
    const auto b = parse_unsigned(hex.substr(2 * i, 2), Notation::hex);
    if (!b) return invalid_argument_error(fmt::format("{}: '{}' is not hex", f.name, value));
    bytes[i] = static_cast<uint8_t>(*b);
  }
  return {};
}

std::string format_component(std::span<const uint8_t> record, const wire::Component& c, bool json) {
  const wire::Field& f = c.field;
  if (!wire::field_fits(record.size(), f)) return json ? "null" : "-";
  if (f.bit_width <= 64) {
    const uint64_t v = wire::get_field(record, f);
    if (is_hex(f)) {
      std::string s = fmt::format("0x{:0{}x}", v, (f.bit_width + 3) / 4);
      return json ? fmt::format("\"{}\"", s) : s;
    }
    return fmt::format("{}", v);
  }
  auto bytes = record.subspan(f.byte_offset(), f.byte_size());
  std::string s;
  if (is_gid(f)) {
    s = format_gid(std::span<const uint8_t, 16>(bytes.data(), 16));
  } else if (is_text(f)) {
    for (uint8_t b : bytes) {
      if (b == 0) break;
      if (json && (b == '"' || b == '\\')) s += '\\';
      s += (b >= 0x20 && b < 0x7F) ? static_cast<char>(b) : '?';
    }
  } else {
    s = "0x";
    for (uint8_t b : bytes) s += fmt::format("{:02x}", b);
  }
  return json ? fmt::format("\"{}\"", s) : s;
}

}  // namespace ibsm::sa
