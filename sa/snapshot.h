// The SA's view of the subnet: an immutable snapshot built once per sweep and
// shared (std::shared_ptr<const SaSnapshot>) by every query until the next
// one replaces it, so a query never waits for a sweep and a sweep never
// waits for queries (issue 5). Every SA record table (record_tables.h) and
// the path records are computed from it alone.
//
// Where each field comes from, for a snapshot built from a SweepReport:
//  - fabric: SweepReport::configured, the discovered fabric with the LIDs,
//    LMCs and port states the sweep gave it.
//  - lfts: SweepReport::routes.lfts, the tables the sweep programmed.
//  - port_info: discovery's raw PortInfo per port with the fields the sweep
//    programs (port_settings.h managed fields: LID, LMC, MasterSMLID/SL, GID
//    prefix, SubnetTimeOut, NeighborMTU, OperationalVLs, HOQLife,
//    VLStallCount) applied as port_info_update computes them, and the port
//    state the sweep left the port in.
//  - switch_info: discovery's SwitchInfo with LinearFDBTop and LifeTimeValue
//    as programmed and PortStateChange cleared (the sweep writes 1 to clear it).
//  - p_keys: the sweep puts the default partition (0xFFFF, full member) at
//    index 0 of every CA port and never reads or writes the rest, nor any
//    switch table. The snapshot holds index 0 = 0xFFFF and empty entries for
//    every port (the SMA reset state, IBA 10.9.1.2; ibsim and SimFabric
//    start so too), sized by NodeInfo:PartitionCap (CA ports, switch port 0)
//    or SwitchInfo:PartitionEnforcementCap (switch ports 1..N).
//  - sl_to_vl, vl_arbitration_low/high: the sweep neither reads nor programs
//    SL2VL or VL arbitration, so the snapshot holds what the SMA starts with:
//    SaSnapshotOptions' tables (ibsim 0.10's defaults unless told), the same
//    for every port.
//  - sm_info: the SM's own SMInfo (GUID of the SM port, SM_Key, priority,
//    state, ActCount) from SaSnapshotOptions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/port_info.h"
#include "mad/wire/sl_to_vl_table.h"
#include "mad/wire/sm_info.h"
#include "mad/wire/switch_info.h"
#include "mad/wire/vl_arbitration_table.h"
#include "sm/fabric/fabric.h"
#include "sm/sweep/port_settings.h"

namespace ibsm {

struct SweepReport;

namespace sa {

// What the snapshot cannot learn from the sweep's report.
struct SaSnapshotOptions {
  SubnetSettings subnet;            // as the sweep was configured (sm_lid is taken from the report)
  uint8_t switch_life_time = 0x12;  // SweepConfig::switch_life_time
  uint64_t sm_key = 0;
  uint8_t sm_priority = 0;
  uint8_t sm_state = wire::sm_state::master;
  uint32_t sm_act_count = 0;
  uint64_t generation = 0;          // the sweep count this snapshot belongs to
  // Assumed SMA tables (see the header comment): ibsim 0.10's SL i -> VL i
  // (SL15 -> VL7) and its VL arbitration entries.
  wire::SlToVlTable sl_to_vl = default_sl_to_vl();
  wire::VlArbitrationTable vl_arbitration_low = default_vl_arbitration(false);
  wire::VlArbitrationTable vl_arbitration_high = default_vl_arbitration(true);
  // NodeInfo:PartitionCap when the fabric model does not know it (0: a
  // fabric from a topology file or a generator).
  uint16_t default_ca_partition_cap = 64;
  uint16_t default_switch_partition_cap = 8;

  static wire::SlToVlTable default_sl_to_vl();
  static wire::VlArbitrationTable default_vl_arbitration(bool high);
};

// The explicit parts a snapshot is made of, for a fabric that did not come
// from a sweep (unit tests, a topology file with LIDs assigned).
struct SaSnapshotParts {
  Fabric fabric;                           // with LIDs, LMCs and port states
  std::vector<std::vector<uint8_t>> lfts;  // by NodeIndex, LFT by LID (0xFF: none); may be empty
  // By NodeIndex then port; empty: made up from the fabric (SMA-like caps:
  // MTU 4096, VL0-7, the fabric's width/speed and state). A port whose
  // port_state is no_change was never read and has no PortInfo.
  std::vector<std::vector<wire::PortInfo>> port_info;
  std::vector<wire::SwitchInfo> switch_info;  // by NodeIndex; empty: made up
  std::vector<DrPath> paths;                  // by NodeIndex, as discovered; may be empty
  PortRef sm_port;                            // the port the SM runs on
};

// One port that owns LIDs: a CA/router port or a switch's port 0.
struct EndPort {
  PortRef ref;
  Guid guid;
  Lid base_lid;
  uint8_t lmc = 0;
};

struct SaSnapshot {
  Fabric fabric;
  std::vector<std::vector<uint8_t>> lfts;               // by NodeIndex (empty for CAs)
  std::vector<std::vector<wire::PortInfo>> port_info;   // by NodeIndex, port 0..num_ports
  std::vector<wire::SwitchInfo> switch_info;            // by NodeIndex (zeros for CAs)
  std::vector<std::vector<std::vector<uint16_t>>> p_keys;  // by NodeIndex, port: the whole table
  std::vector<uint8_t> entry_port;  // by NodeIndex: NodeInfo:LocalPortNum as the SM read it (0: unknown)
  wire::SlToVlTable sl_to_vl;
  wire::VlArbitrationTable vl_arbitration_low, vl_arbitration_high;
  wire::SmInfo sm_info;
  Lid sm_lid;
  PortRef sm_port;
  uint64_t subnet_prefix = 0;
  uint64_t generation = 0;

  // Orders and indexes, built once.
  std::vector<NodeIndex> nodes_by_guid;  // every node, ascending node GUID (OpenSM's node table order)
  std::vector<EndPort> endports;         // ascending port GUID (OpenSM's port table order)

  bool has_port_info(NodeIndex n, uint8_t port) const {
    return port < port_info[n.value].size() && port_info[n.value][port].port_state != PortState::no_change;
  }
  // The end port owning `lid` (any LID of its 2^LMC), or nullptr.
  const EndPort* by_lid(Lid lid) const {
    if (lid.value >= lid_owner_.size() || lid_owner_[lid.value] == 0) return nullptr;
    return &endports[lid_owner_[lid.value] - 1];
  }
  const EndPort* by_port_guid(Guid guid) const;
  std::optional<NodeIndex> by_node_guid(Guid guid) const { return fabric.find_by_node_guid(guid); }
  // The LID every record about node `n` (a switch) or its port `port` (a CA) carries.
  Lid record_lid(NodeIndex n, uint8_t port) const;

  // Builds the indexes; the builders call it last.
  void index();

 private:
  std::vector<uint32_t> lid_owner_;  // by LID: endports index + 1, 0 for none
};

Result<SaSnapshot> build_sa_snapshot(SaSnapshotParts parts, const SaSnapshotOptions& options);
Result<SaSnapshot> build_sa_snapshot(const SweepReport& report, const SaSnapshotOptions& options);

}  // namespace sa
}  // namespace ibsm
