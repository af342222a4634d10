// The view of a fabric that OpenSM's dump files print: nodes in the order of
// OpenSM's GUID tables, the port that answers each LID, and the subnet's top
// LID. Shared by the writers in opensm_dump.h.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mad/base/types.h"
#include "sm/fabric/fabric.h"

namespace ibsm::dump {

class OpenSmView {
 public:
  explicit OpenSmView(const Fabric& fabric);

  const Fabric& fabric() const { return fabric_; }

  // Every node, and every switch, in the order OpenSM walks its node and
  // switch GUID tables when it dumps them. Those tables are cl_qmaps keyed by
  // the GUID in network byte order, compared as a host integer: on the
  // little-endian hosts OpenSM runs on, that is the byte-swapped GUID.
  const std::vector<NodeIndex>& nodes() const { return nodes_; }
  const std::vector<NodeIndex>& switches() const { return switches_; }

  // The highest LID any port answers to (base LID + 2^LMC - 1); 0 when none
  // has a LID. OpenSM's dumps list LIDs up to this one on every switch.
  uint16_t max_lid() const { return static_cast<uint16_t>(lid_owner_.empty() ? 0 : lid_owner_.size() - 1); }

  // The port that answers `lid`: port 0 of a switch, or a cabled CA or router
  // port, as OpenSM's LID table holds them. nullopt for a LID nobody has.
  std::optional<PortRef> port_of_lid(uint16_t lid) const;

  // The LID a port shows in the dumps: a switch's port 0 LID for any of its
  // ports, a CA or router port's own LID otherwise.
  Lid lid_of(PortRef port) const;
  // The port GUID of the port that answers for `port` (a switch's port 0).
  Guid port_guid_of(PortRef port) const;

 private:
  const Fabric& fabric_;
  std::vector<NodeIndex> nodes_;
  std::vector<NodeIndex> switches_;
  std::vector<PortRef> lid_owner_;  // indexed by LID; node invalid where no port has it
};

// "Channel Adapter", "Switch", "Router", "UNKNOWN": OpenSM's node type names.
const char* opensm_node_type_name(NodeType type);

}  // namespace ibsm::dump
