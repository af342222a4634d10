// The SA's view of the subnet: an immutable snapshot built once per sweep and
// shared (std::shared_ptr<const SaSnapshot>) by every query until the next
// one replaces it, so a query never waits for a sweep and a sweep never
// waits for queries (issue 5). Every SA record table (record_tables.h) and
// the path records are computed from it alone.
//
// It is built from the SubnetSnapshot the sweep recorded (sm/fabric/
// subnet_snapshot.h): fabric, LFTs, PortInfo as the ports hold it after the
// sweep, SwitchInfo as programmed, P_Key tables, the routing engine's path
// SLs. Nothing is derived again here; the SA only adds its indexes and:
//  - sl_to_vl, vl_arbitration_low/high: the sweep neither reads nor programs
//    SL2VL or VL arbitration, so the snapshot holds what the SMA starts with:
//    SaSnapshotOptions' tables (ibsim 0.10's defaults unless told), the same
//    for every port.
//  - sm_info: the SM's own SMInfo (GUID of the SM port, SM_Key, priority,
//    state, ActCount) from SaSnapshotOptions.
//  - path_packet_life_time: the subnet's SubnetTimeOut, the PacketLifeTime
//    every PathRecord between two ports carries (OpenSM answers its
//    subnet_timeout option there, not packet_life_time, which is the
//    switches' LifeTimeValue).
//  - entry_port: NodeInfo:LocalPortNum as the SM read it, from the paths.
// A fabric that was never swept (unit tests, benchmarks) gets its
// SubnetSnapshot from configured_subnet() (sm/sweep/configured_subnet.h).
#pragma once

#include <cstdint>
#include <functional>
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
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm {

namespace sa {

// What the snapshot cannot learn from the sweep.
struct SaSnapshotOptions {
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

  static wire::SlToVlTable default_sl_to_vl();
  static wire::VlArbitrationTable default_vl_arbitration(bool high);
};

// What a path leaving a node through one port meets (sa/path_records.h):
// index() computes it once per snapshot so that tracing a path is a walk over
// LFT bytes and these entries, with no PortInfo decoding per query.
struct PortLink {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t remote_node = kNone;  // kNone: no cable, or an end not ACTIVE (IBA 7.2: data flows only there)
  uint8_t remote_port = 0;
  // The link's MTU code (IBA 14.2.5.6): the least of both ends' MTUCap and
  // the NeighborMTU the sweep programmed on each. Port 0 of a switch has no
  // link: its own MTUCap.
  uint8_t mtu = 0;
  // The link's rate code (IBA 15.2.5.16 Rate): the slower end's active
  // width x speed. Port 0 of a switch: its own PortInfo's.
  uint8_t rate = 0;
  bool remote_is_switch = false;
  bool usable() const { return remote_node != kNone; }
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
  // By NodeIndex (empty for CAs): the LFTs the sweep programmed, their rows
  // shared with the sweep's SubnetSnapshot rather than copied (3,468
  // switches x 42,772 LIDs are 148 MB a copy). Read them through lft().
  SharedLfts lfts;
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
  uint8_t path_packet_life_time = 18;  // see the header comment
  // The SL of the path from `slid` to `dlid` (the routing engine's path_sl);
  // empty: SL 0 for every path.
  std::function<uint8_t(Lid slid, Lid dlid)> path_sl;
  // The QoS policy PathRecords follow (sa/qos_paths.h) and the partitions
  // its port groups may name; null: none.
  std::shared_ptr<const QosPolicy> qos_policy;
  std::shared_ptr<const PartitionConfig> partitions;

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
  // Node n's LFT (empty for a CA).
  const LftRow& lft(NodeIndex n) const {
    static const LftRow none;
    return n.value < lfts.size() ? lfts[n.value] : none;
  }
  // Node n's LFT made this snapshot's own to change (a test that breaks a
  // route); the sweep's snapshot keeps its row.
  LftRow& lft_for_write(NodeIndex n) {
    lfts.resize(fabric.node_count());
    return lfts.edit(n.value);
  }
  std::optional<NodeIndex> by_node_guid(Guid guid) const { return fabric.find_by_node_guid(guid); }
  // The LID every record about node `n` (a switch) or its port `port` (a CA) carries.
  Lid record_lid(NodeIndex n, uint8_t port) const;
  // Where port `port` of node `n` leads (index() must have run).
  const PortLink& link(NodeIndex n, uint8_t port) const { return links_[link_base_[n.value] + port]; }
  // Node n's NumPorts, from the same index (cheaper than the Node in inner loops).
  uint32_t link_ports(NodeIndex n) const { return link_base_[n.value + 1] - link_base_[n.value] - 1; }

  // Builds the indexes; the builders call it last, and whoever changes the
  // fabric, the port infos or the port states afterwards calls it again:
  // the GUID orders, the LID index and the per-port links (PortLink).
  void index();

 private:
  std::vector<uint32_t> lid_owner_;  // by LID: endports index + 1, 0 for none
  std::vector<uint64_t> endport_guids_;  // endports' GUIDs, same order (by_port_guid)
  std::vector<uint32_t> link_base_;  // by NodeIndex: the node's port 0 in links_; one more at the end
  std::vector<PortLink> links_;
};

// Fails for an SM port outside the fabric or tables that do not match it.
// The shared form keeps `subnet` alive and reads its LFTs in place; the
// other copies them.
Result<SaSnapshot> build_sa_snapshot(std::shared_ptr<const SubnetSnapshot> subnet, const SaSnapshotOptions& options);
Result<SaSnapshot> build_sa_snapshot(const SubnetSnapshot& subnet, const SaSnapshotOptions& options);

}  // namespace sa
}  // namespace ibsm
