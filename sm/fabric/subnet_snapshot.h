// The subnet as one heavy sweep left it configured: one immutable value per
// sweep, shared (std::shared_ptr<const SubnetSnapshot>) by whoever reads it
// afterwards — the SA builds its indexes from it, the light sweep checks the
// fabric against it, the SubnetManager keeps it beside the previous one.
// Nobody re-derives what the sweep wrote: the sweep records it here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mad/base/types.h"
#include "mad/wire/port_info.h"
#include "mad/wire/switch_info.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/fabric/qos_policy.h"

namespace ibsm {

struct SubnetSnapshot {
  // The discovered fabric with the LIDs, LMCs and port states the sweep gave it.
  Fabric fabric;
  std::vector<DrPath> paths;  // by NodeIndex: the directed route it was found on
  PortRef sm_port;            // the SM's own port (a switch's port 0 for an SM on a switch)
  Lid sm_lid;
  // By NodeIndex: the LFT the sweep programmed, by LID (kNoRoute: no
  // entry); empty for CAs. A row the next sweep leaves as it is stays
  // shared with the next snapshot.
  SharedLfts lfts;
  // By NodeIndex, then port 0..NumPorts: PortInfo as the port holds it after
  // the sweep (what it read, the fields the sweep manages as it wrote them,
  // the state it brought the port to). port_state no_change: never read.
  std::vector<std::vector<wire::PortInfo>> port_info;
  // By NodeIndex: SwitchInfo as programmed (LinearFDBTop, LifeTimeValue,
  // PortStateChange cleared); zeros for CAs.
  std::vector<wire::SwitchInfo> switch_info;
  // By NodeIndex, then port: the whole P_Key table as the sweep leaves it
  // (empty for a port never read).
  std::vector<std::vector<std::vector<uint16_t>>> p_keys;
  // The partitions in effect (the built-in Default partition, then the
  // file's): what the tables were planned from, and what the SA makes the
  // IPoIB broadcast groups from. Null only for a hand-made snapshot.
  std::shared_ptr<const PartitionConfig> partitions;
  uint64_t subnet_prefix = 0;
  uint8_t subnet_timeout = 18;  // PortInfo:SubnetTimeOut as programmed
  std::string routing_engine;   // the engine actually used
  // The SL of a path, from the engine used; empty: SL 0 for every path.
  std::function<uint8_t(Lid source, Lid destination)> path_sl;
  uint64_t sweep = 0;  // the heavy sweep this is (1 for the first)
  // The QoS policy in effect (qos TRUE and a policy file); null: none.
  std::shared_ptr<const QosPolicy> qos_policy;

  bool has_port_info(NodeIndex n, uint8_t port) const {
    return n.value < port_info.size() && port < port_info[n.value].size() &&
           port_info[n.value][port].port_state != PortState::no_change;
  }
};

}  // namespace ibsm
