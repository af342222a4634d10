// Which P_Keys each port should hold (IBA 10.9: partitions), computed from
// the fabric, the partitions in effect and the SM's port. Pure: the heavy
// sweep reads the tables, asks for this plan and Sets only the blocks that
// differ; configured_subnet() derives the same tables for a fabric that was
// never swept.
//
// What OpenSM does, and so this plan (opensm/osm_prtn.c, osm_pkey_mgr.c):
//  - The Default partition, P_Key 0x7FFF, always exists. Without a
//    partitions file every port is a full member and it has the IPoIB
//    broadcast group; with one, every port is a limited member, the SM's
//    port a full one, and the file's definitions come after it (a file
//    definition of 0x7FFF adds to it: later members win).
//  - End ports (CA and router ports, a switch's port 0) hold the keys of
//    their partitions with bit 15 set for full members. Within one
//    partition the last member entry naming a port decides its membership;
//    with allow_both_pkeys full and limited add up to two entries.
//  - A key the port holds already keeps its index (the kernel binds IPoIB
//    child interfaces to indexes). An indx0 partition's key goes to index 0;
//    without one the Default key takes index 0 when that index is free. New
//    keys fill the free indexes in partition order. More keys than
//    NodeInfo:PartitionCap: a problem for that port, the rest still held.
//  - A switch port cabled to an end port, when part_enforce is not off and
//    SwitchInfo:PartitionEnforcementCap is not 0, holds the end port's keys
//    (a limited key dropped where the full one is there too) and gets
//    PortInfo:PartitionEnforcementInbound/Outbound per part_enforce. More
//    keys than the cap: a problem, enforcement off on that port. With
//    part_enforce off the bits are cleared. Links between switches are not
//    enforced.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mad/wire/port_info.h"
#include "mad/wire/switch_info.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/sweep/port_map.h"
#include "sm/sweep/port_settings.h"
#include "sm/sweep/sweep_problem.h"

namespace ibsm {

// By NodeIndex, then port 0..NumPorts: a whole P_Key table (empty: none).
using PKeyTables = std::vector<std::vector<std::vector<uint16_t>>>;

// The P_Key tables the ports hold, read in place: a whole-fabric
// PKeyTables, or the SM's memory of each node's ports (SweepState). A
// sweep reads the memory; at 42k LIDs a copy of it is 130k tables per
// sweep, one cable pulled or not.
class HeldPKeys {
 public:
  using PortTables = PortMap<std::vector<uint16_t>>;
  HeldPKeys(const PKeyTables& tables) : tables_(&tables) {}  // NOLINT(google-explicit-constructor): a view
  // By NodeIndex: the node's remembered tables (null: none).
  explicit HeldPKeys(std::vector<const PortTables*> by_node) : by_node_(std::move(by_node)) {}

  // Node n's port p table; empty when nothing is known.
  const std::vector<uint16_t>& at(uint32_t n, uint8_t p) const {
    if (tables_) return n < tables_->size() && p < (*tables_)[n].size() ? (*tables_)[n][p] : kNothing;
    if (n >= by_node_.size() || !by_node_[n]) return kNothing;
    auto it = by_node_[n]->find(p);
    return it == by_node_[n]->end() ? kNothing : it->second;
  }

 private:
  static inline const std::vector<uint16_t> kNothing{};
  const PKeyTables* tables_ = nullptr;
  std::vector<const PortTables*> by_node_;
};

// The partitions in effect given the file's (null: no file, OpenSM's
// built-in default).
PartitionConfig partitions_in_effect(const PartitionConfig* file);

// P_Key table sizes when the model does not know them (a topology file).
struct PartitionCaps {
  uint16_t ca = 64;            // NodeInfo:PartitionCap of a CA or router
  uint16_t switch_port0 = 8;   // NodeInfo:PartitionCap of a switch
};

// Entries of the port's P_Key table: NodeInfo:PartitionCap for end ports,
// SwitchInfo:PartitionEnforcementCap for switch ports 1..N.
size_t p_key_capacity(const Node& node, uint8_t port, const wire::SwitchInfo& switch_info, PartitionCaps caps);

// A table in the SMA's reset state: the default P_Key 0xFFFF at index 0
// (IBA 10.9.1.2; ibsim and SimFabric start so), the rest empty.
std::vector<uint16_t> reset_p_key_table(size_t entries);

struct PartitionPlan {
  PKeyTables tables;  // the wanted tables; empty for a port the plan leaves alone
  // By NodeIndex, then port: the enforcement bits wanted on switch ports
  // cabled to an end port; unset: left alone.
  std::vector<std::vector<std::optional<PortEnforcement>>> enforcement;
  std::vector<SweepProblem> problems;  // partition_cap, by GUID and port; the rest is still planned
};

struct PartitionPlanInput {
  const Fabric& fabric;
  const PartitionConfig& partitions;  // in effect (partitions_in_effect)
  PortRef sm_port;                    // a switch's port 0 for an SM on a switch
  PartitionOptions options;
  // By NodeIndex then port: which ports were read (port_state no_change: not).
  const std::vector<std::vector<wire::PortInfo>>& port_info;
  const std::vector<wire::SwitchInfo>& switch_info;  // by NodeIndex
  // What each port holds now (empty: nothing known, planned from scratch).
  HeldPKeys held;
  PartitionCaps caps;
};

PartitionPlan plan_partitions(const PartitionPlanInput& in);

}  // namespace ibsm
