// Directed-route discovery: walks the fabric breadth-first from the local port
// with many SMPs in flight (through the MadDispatcher's window), and builds the
// fabric model. A node that does not answer is reported with its DR path and
// the port it hangs off; the rest of the fabric is still discovered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/wire/port_info.h"
#include "mad/wire/switch_info.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/m_keys.h"

namespace ibsm {

struct DiscoveryOptions {
  // Also read SwitchInfo of every switch (the sweep needs it; a topology dump does not).
  bool query_switch_info = false;
  // Keep every PortInfo read whole, so a sweep can write back only what differs.
  bool keep_port_info = false;
  // M_Keys (IBA 14.2.4). A path whose node is not known yet gets NodeInfo
  // with each of `m_key_candidates` in turn, the next after no answer (a
  // port at protection level 2 or 3 drops a Get with the wrong key); empty:
  // 0 only. Once NodeInfo names the port, the key `known_m_keys` lists for
  // it is used, else the one that was answered.
  std::vector<uint64_t> m_key_candidates;
  const Guid2MKey* known_m_keys = nullptr;
};

// What went wrong at one place of the fabric.
struct DiscoveryProblem {
  DrPath path;        // where the SMP was sent
  Guid via_node;      // the node whose port leads there (zero for the local node)
  uint8_t via_port = 0;
  std::string what;   // "no answer to NodeInfo", "PortInfo: ..."
  // The port answered a Get but hides its M_Key from ours (protection level
  // 1): the SM does not hold its key, and a Set would be refused.
  bool m_key_refused = false;
};

struct DiscoveryResult {
  Fabric fabric;
  std::vector<DrPath> paths;  // by NodeIndex: the DR path the node was found on
  // By NodeIndex; SwitchInfo is all zeros for CAs and when not queried.
  std::vector<wire::SwitchInfo> switch_info;
  // By NodeIndex, then port number; filled with keep_port_info (empty otherwise).
  // A port whose PortInfo was never read (a CA port not reached) has port_state no_change.
  std::vector<std::vector<wire::PortInfo>> port_info;
  NodeIndex local_node;
  uint8_t local_port = 0;
  std::vector<DiscoveryProblem> problems;
  // The M_Key of each path's port as discovery found it (the key answered,
  // or the one a port at protection level 0 shows), refused paths marked:
  // what the sweep's SMPs carry. Empty when no port holds a key.
  MKeyPaths m_keys;
  uint64_t smps_sent = 0;    // including retries
  uint64_t smps_timed_out = 0;
};

// The DR path of SMPs meant for port `port` of node `n`. A CA's SMA answers
// for the port an SMP came in on and takes PortInfo, P_Key and SMInfo traffic
// only there (IBA 14.2.5.6, 14.2.5.7), so a CA port is reached over its own
// cable: from the switch at its other end, or as the local port. A switch is
// reached at its node path (port 0 answers for all its ports). nullopt: the
// port cannot be reached through itself (a CA port cabled to a CA other than
// the local one, or a path already 63 hops long).
std::optional<DrPath> path_into(const DiscoveryResult& d, NodeIndex n, uint8_t port);

// Runs one discovery to completion on `dispatcher` (which must be idle).
DiscoveryResult discover_fabric(MadDispatcher& dispatcher, const DiscoveryOptions& options = {},
                                LogSink& log = null_log_sink());

// Where discover_from starts: the DR path to probe with NodeInfo and the
// known port it leaves through.
struct DiscoveryProbe {
  DrPath path;
  PortRef via;
};

// What the subnet model keeps of a PortInfo read of `node`'s `port`: states,
// active width and speed, VLCap, and the LID (a switch's port 0 gives every
// port of the switch its LID, IBA 14.2.5.6). Full and incremental discovery
// both store a read with it.
void store_port_info(Node& node, uint8_t port, const wire::PortInfo& pi);

// Discovery outward from `known` (a fabric found before, with its paths and
// PortInfos): each probe's NodeInfo is read; a known node there is only
// linked (a CA's new port read), a new one is discovered with everything
// beyond it that is new. SMP counts are this run's only.
DiscoveryResult discover_from(MadDispatcher& dispatcher, DiscoveryResult known,
                              const std::vector<DiscoveryProbe>& probes, const DiscoveryOptions& options = {},
                              LogSink& log = null_log_sink());

}  // namespace ibsm
