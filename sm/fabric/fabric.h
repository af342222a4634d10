// The subnet model: nodes, their ports, and links as port pairs, with GUID and
// name maps. One model serves a topology file, a discovered fabric and the
// simulated fabric's wiring; per-sweep snapshots are immutable copies of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm {

// Typed index into Fabric's node table.
struct NodeIndex {
  uint32_t value = UINT32_MAX;
  constexpr NodeIndex() = default;
  constexpr explicit NodeIndex(uint32_t v) : value(v) {}
  constexpr bool valid() const { return value != UINT32_MAX; }
  constexpr auto operator<=>(const NodeIndex&) const = default;
};

// Link width and speed in PortInfo's encodings (IBA 14.2.5.6):
// width: 1=1x 2=4x 4=8x 8=12x 16=2x; speed: 1=SDR 2=DDR 4=QDR;
// extended speed: 0=none 1=FDR 2=EDR 4=HDR 8=NDR.
namespace link_width { inline constexpr uint8_t x1 = 1, x4 = 2, x8 = 4, x12 = 8, x2 = 16; }
namespace link_speed { inline constexpr uint8_t sdr = 1, ddr = 2, qdr = 4; }
namespace link_speed_ext { inline constexpr uint8_t none = 0, fdr = 1, edr = 2, hdr = 4, ndr = 8; }

// "4x", "12x"; "?" for an unknown code.
const char* link_width_name(uint8_t width);
// "SDR".."NDR" from the speed and extended speed codes, as ibnetdiscover prints.
const char* link_speed_name(uint8_t speed, uint8_t speed_ext);

struct Port {
  Guid guid;  // switches: every port carries port 0's GUID
  Lid base_lid;
  uint8_t lmc = 0;
  PortState state = PortState::down;
  PhysState phys_state = PhysState::polling;
  uint8_t width_active = link_width::x4;
  uint8_t speed_active = link_speed::sdr;
  uint8_t speed_ext_active = link_speed_ext::none;
  // PortInfo:VLCap (IBA 14.2.5.6: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14);
  // 0: unknown (a topology file does not say). Engines that spread paths
  // over VLs stay within it (routing/vl_budget.h).
  uint8_t vl_cap = 0;
  // The peer at the other end of the cable, if any.
  NodeIndex remote_node;
  uint8_t remote_port = 0;
  bool connected() const { return remote_node.valid(); }
};

struct Node {
  NodeType type = NodeType::unknown;
  uint8_t num_ports = 0;  // physical ports; port 0 is the switch management port
  Guid node_guid;
  Guid system_guid;
  uint32_t vendor_id = 0;
  uint16_t device_id = 0;
  uint32_t revision = 0;
  uint16_t partition_cap = 0;  // NodeInfo:PartitionCap (0: unknown, e.g. from a topology file)
  // SwitchInfo:EnhancedPort0 (IBA 14.2.5.4): port 0 of this switch is a full port
  // with its own PortInfo; ibnetdiscover prints "enhanced port 0" or "base port 0".
  bool enhanced_port0 = false;
  std::string name;         // the node's id in a topology file ("Switch1", "S-0002c9...")
  std::string description;  // NodeDescription as the SMA answers it (at most 64 bytes)
  std::vector<Port> ports;  // indexed by port number: 0..num_ports
  bool is_switch() const { return type == NodeType::switch_; }
  // Port numbers that can carry a link: 1..num_ports.
  Port& port(uint8_t num) { return ports[num]; }
  const Port& port(uint8_t num) const { return ports[num]; }
};

// One end of a link, and a whole link listed once (a < b in (node, port) order).
struct PortRef {
  NodeIndex node;
  uint8_t port = 0;
  constexpr auto operator<=>(const PortRef&) const = default;
};
struct Link {
  PortRef a, b;
};

class Fabric {
 public:
  // Adds a node; fills `ports` to num_ports + 1 entries if it is shorter.
  // Fails on a duplicate non-zero node GUID or a duplicate non-empty name, or
  // when a non-zero port GUID is already another node's port GUID.
  Result<NodeIndex> add_node(Node node);
  // Cables port `pa` of `a` to port `pb` of `b`. Fails when a port is out of
  // range (0 or > num_ports) or already cabled, or when both ends are the same port.
  Status connect(PortRef a, PortRef b);
  // Removes the cable at this port (both ends); no-op when not cabled.
  void disconnect(PortRef p);

  size_t node_count() const { return nodes_.size(); }
  Node& node(NodeIndex i) { return nodes_[i.value]; }
  const Node& node(NodeIndex i) const { return nodes_[i.value]; }
  const std::vector<Node>& nodes() const { return nodes_; }

  std::optional<NodeIndex> find_by_node_guid(Guid g) const;
  std::optional<NodeIndex> find_by_name(std::string_view name) const;
  // The node and port number of a port GUID (a switch's port GUID maps to port 0).
  std::optional<PortRef> find_by_port_guid(Guid g) const;
  // Re-indexes port GUIDs after they were changed in place.
  void reindex_port_guids();

  // Every link once, in node order.
  std::vector<Link> links() const;
  size_t switch_count() const;
  size_t ca_count() const;  // CAs and routers: the endpoints

 private:
  std::vector<Node> nodes_;
  std::unordered_map<Guid, NodeIndex> by_node_guid_;
  std::unordered_map<Guid, PortRef> by_port_guid_;
  std::unordered_map<std::string, NodeIndex> by_name_;
};

}  // namespace ibsm

template <> struct std::hash<ibsm::NodeIndex> {
  size_t operator()(ibsm::NodeIndex n) const noexcept { return n.value; }
};
