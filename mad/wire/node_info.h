// NodeInfo (IBA 14.2.5.3, table 147): 40 bytes of SMP data.
#pragma once

#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/field_codec.h"

namespace ibsm::wire {

inline constexpr size_t node_info_size = 40;

namespace node_info_fields {
inline constexpr Field base_version{0, 8, "BaseVersion"};
inline constexpr Field class_version{8, 8, "ClassVersion"};
inline constexpr Field node_type{16, 8, "NodeType"};
inline constexpr Field num_ports{24, 8, "NumPorts"};
inline constexpr Field system_image_guid{32, 64, "SystemImageGUID"};
inline constexpr Field node_guid{96, 64, "NodeGUID"};
inline constexpr Field port_guid{160, 64, "PortGUID"};
inline constexpr Field partition_cap{224, 16, "PartitionCap"};
inline constexpr Field device_id{240, 16, "DeviceID"};
inline constexpr Field revision{256, 32, "Revision"};
inline constexpr Field local_port_num{288, 8, "LocalPortNum"};
inline constexpr Field vendor_id{296, 24, "VendorID"};
}  // namespace node_info_fields

struct NodeInfo {
  uint8_t base_version = 1;
  uint8_t class_version = 1;
  NodeType node_type = NodeType::unknown;
  uint8_t num_ports = 0;
  Guid system_image_guid;
  Guid node_guid;
  Guid port_guid;
  uint16_t partition_cap = 0;
  uint16_t device_id = 0;
  uint32_t revision = 0;
  uint8_t local_port_num = 0;
  uint32_t vendor_id = 0;  // 24 bits
  bool operator==(const NodeInfo&) const = default;
};

template <typename Self, typename Fn>
  requires same_struct<Self, NodeInfo>
constexpr void visit_fields(Self& x, Fn&& fn) {
  namespace f = node_info_fields;
  fn(f::base_version, x.base_version);
  fn(f::class_version, x.class_version);
  fn(f::node_type, x.node_type);
  fn(f::num_ports, x.num_ports);
  fn(f::system_image_guid, x.system_image_guid);
  fn(f::node_guid, x.node_guid);
  fn(f::port_guid, x.port_guid);
  fn(f::partition_cap, x.partition_cap);
  fn(f::device_id, x.device_id);
  fn(f::revision, x.revision);
  fn(f::local_port_num, x.local_port_num);
  fn(f::vendor_id, x.vendor_id);
}

void encode(const NodeInfo& x, std::span<uint8_t> data);
Result<NodeInfo> decode_node_info(std::span<const uint8_t> data);

}  // namespace ibsm::wire
