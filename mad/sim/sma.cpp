#include "mad/sim/sma.h"

#include <algorithm>

#include "mad/sim/sma_handlers.h"
#include "mad/wire/constants.h"
#include "mad/wire/guid_info.h"
#include "mad/wire/node_description.h"
#include "mad/wire/node_info.h"
#include "mad/wire/switch_info.h"

namespace ibsm::sim {

namespace attr = wire::smp_attr;
namespace status = wire::mad_status;

bool sma_handles(uint16_t attr_id) {
  switch (attr_id) {
    case attr::node_description:
    case attr::node_info:
    case attr::switch_info:
    case attr::guid_info:
    case attr::port_info:
    case attr::p_key_table:
    case attr::sl_to_vl_mapping_table:
    case attr::vl_arbitration_table:
    case attr::linear_forwarding_table:
    case attr::multicast_forwarding_table: return true;
    default: return false;
  }
}

uint16_t sma_process(SimState& state, const SmaRequest& r, std::span<uint8_t> data) {
  if (r.method != wire::method::get && r.method != wire::method::set) return status::method_unsupported;
  const bool set = r.method == wire::method::set;
  switch (r.attr_id) {
    case attr::node_description: return sma_node_description(state, r, set, data);
    case attr::node_info: return sma_node_info(state, r, set, data);
    case attr::switch_info: return sma_switch_info(state, r, set, data);
    case attr::guid_info: return sma_guid_info(state, r, set, data);
    case attr::port_info: return sma_port_info(state, r, set, data);
    case attr::p_key_table: return sma_p_key_table(state, r, set, data);
    case attr::sl_to_vl_mapping_table: return sma_sl_to_vl(state, r, set, data);
    case attr::vl_arbitration_table: return sma_vl_arbitration(state, r, set, data);
    case attr::linear_forwarding_table: return sma_lft(state, r, set, data);
    case attr::multicast_forwarding_table: return sma_mft(state, r, set, data);
    default: return status::method_attr_unsupported;
  }
}

// NodeInfo (IBA 14.2.5.3): read-only. PortGUID and LocalPortNum are those of
// the port the SMP entered (a switch's ports all carry its node GUID).
uint16_t sma_node_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  if (set) return status::method_attr_unsupported;
  const Node& node = s.topo_node(r.node);
  wire::NodeInfo ni;
  ni.node_type = node.type;
  ni.num_ports = node.num_ports;
  ni.system_image_guid = node.system_guid.is_zero() ? node.node_guid : node.system_guid;
  ni.node_guid = node.node_guid;
  ni.port_guid = s.port_guid(r.node, r.in_port);
  ni.partition_cap = node.is_switch() ? defaults::switch_partition_cap : defaults::ca_partition_cap;
  ni.device_id = node.device_id;
  ni.revision = node.revision;
  ni.local_port_num = r.in_port;
  ni.vendor_id = node.vendor_id & 0xFFFFFF;
  std::fill(data.begin(), data.end(), uint8_t{0});
  wire::encode(ni, data);
  return status::ok;
}

// NodeDescription (IBA 14.2.5.2): read-only text; ibsim answers the netfile's
// description, or the node's name when there is none.
uint16_t sma_node_description(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  if (set) return status::method_attr_unsupported;
  const Node& node = s.topo_node(r.node);
  wire::set_text(data, wire::node_description_fields::node_string,
                 node.description.empty() ? std::string_view(node.name) : std::string_view(node.description));
  return status::ok;
}

// SwitchInfo (IBA 14.2.5.4). Writable: LinearFDBTop, LifeTimeValue, and
// PortStateChange, which a 1 clears. MulticastFDBTop is not supported (the
// PortInfo capability bit is clear), as in ibsim, so it stays 0, unless
// SimOptions::multicast_fdb_top says the switches have it.
uint16_t sma_switch_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  SwitchRecord* sw = s.switch_of(r.node);
  if (sw == nullptr) return status::method_attr_unsupported;
  if (set) {
    auto in = wire::decode_switch_info(data);
    if (!in.ok()) return status::invalid_field;
    if (in->linear_fdb_top >= s.options().linear_fdb_cap) return status::invalid_field;
    sw->linear_fdb_top = in->linear_fdb_top;
    sw->life_time_value = in->life_time_value;
    if (in->port_state_change) sw->port_state_change = false;
    if (s.options().multicast_fdb_top) sw->multicast_fdb_top = in->multicast_fdb_top;
  }
  wire::SwitchInfo si;
  si.linear_fdb_cap = s.options().linear_fdb_cap;
  si.multicast_fdb_cap = s.options().multicast_fdb_cap;
  si.linear_fdb_top = sw->linear_fdb_top;
  si.life_time_value = sw->life_time_value;
  si.port_state_change = sw->port_state_change;
  if (s.options().multicast_fdb_top) si.multicast_fdb_top = sw->multicast_fdb_top;
  si.partition_enforcement_cap = defaults::switch_enforcement_cap;
  si.filter_raw_inbound_cap = true;
  si.filter_raw_outbound_cap = true;
  si.enhanced_port0 = s.topo_node(r.node).enhanced_port0;
  std::fill(data.begin(), data.end(), uint8_t{0});
  wire::encode(si, data);
  return status::ok;
}

// GUIDInfo (IBA 14.2.5.5): the port's GUID at index 0, nothing assigned
// beyond it. Get only, as in ibsim. A switch answers for port 0.
uint16_t sma_guid_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  if (set) return status::method_attr_unsupported;
  const bool sw = s.node(r.node).is_switch();
  const uint32_t cap = sw ? defaults::switch_guid_cap : defaults::ca_guid_cap;
  if (uint64_t{r.attr_mod} * wire::guids_per_block >= cap) return status::invalid_field;
  wire::GuidInfo gi;
  if (r.attr_mod == 0) gi.guids[0] = s.port_guid(r.node, sw ? 0 : r.in_port);
  std::fill(data.begin(), data.end(), uint8_t{0});
  wire::encode(gi, data);
  return status::ok;
}

}  // namespace ibsm::sim
