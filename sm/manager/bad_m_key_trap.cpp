#include "sm/manager/bad_m_key_trap.h"

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/field.h"

namespace ibsm {
namespace {

// The port of the snapshot whose LIDs include `lid`, named for the log.
std::string port_with_lid(const SubnetSnapshot* subnet, Lid lid) {
  if (subnet == nullptr || lid.value == 0) return {};
  const Fabric& f = subnet->fabric;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    for (uint8_t p = node.is_switch() ? 0 : 1; p <= (node.is_switch() ? 0 : node.num_ports); ++p) {
      const Port& port = node.port(p);
      if (port.base_lid.value == 0 || lid.value < port.base_lid.value ||
          uint32_t{lid.value} >= uint32_t{port.base_lid.value} + (1u << port.lmc))
        continue;
      return node.is_switch() ? fmt::format("switch {}", node.node_guid)
                              : fmt::format("ca {} port {}", node.node_guid, p);
    }
  }
  return {};
}

const char* method_name(uint64_t method) {
  switch (method) {
    case wire::method::get: return "Get";
    case wire::method::set: return "Set";
    case wire::method::trap_repress: return "TrapRepress";
    default: return "method";
  }
}

}  // namespace

std::string describe_bad_m_key(const wire::Notice& n, const SubnetSnapshot* subnet) {
  namespace f = wire::notice_fields;
  // The notice's DataDetails, at their place in a whole notice.
  std::array<uint8_t, wire::notice_size_without_gid> data{};
  wire::encode(n, data);
  const auto requester = static_cast<uint16_t>(wire::get_field(data, f::trap256_lid));
  const uint64_t method = wire::get_field(data, f::trap256_method);
  const std::string at = port_with_lid(subnet, n.issuer_lid);
  std::string line = fmt::format(
      "bad m_key (trap 256) at {}{}(lid {}): lid {} tried {} (method 0x{:02x}) attribute 0x{:04x} modifier 0x{:08x} "
      "with m_key 0x{:016x}",
      at, at.empty() ? "" : " ", n.issuer_lid.value, requester, method_name(method), method,
      wire::get_field(data, f::trap256_attribute_id), wire::get_field(data, f::trap256_attribute_modifier),
      wire::get_field(data, f::trap256_m_key));
  const std::string who = port_with_lid(subnet, Lid{requester});
  if (!who.empty()) line += fmt::format(" (from {})", who);
  if (wire::get_field(data, f::trap256_dr_notice) != 0) {
    const auto hops = static_cast<size_t>(wire::get_field(data, f::trap256_dr_hop_count));
    std::string back;
    const size_t first = f::trap256_dr_return_path.bit_offset / 8;
    for (size_t i = 0; i < hops && first + i < data.size(); ++i)
      back += fmt::format("{}{}", i ? "," : "", data[first + i]);
    line += fmt::format(", directed route (drslid {}) back {}{}", wire::get_field(data, f::trap256_dr_slid),
                        back.empty() ? "0" : back,
                        wire::get_field(data, f::trap256_dr_path_truncated) != 0 ? " (truncated)" : "");
  }
  return line;
}

}  // namespace ibsm
