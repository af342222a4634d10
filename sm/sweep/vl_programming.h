// SL2VL and VL arbitration programming (IBA 7.6.6, 7.6.9, 14.2.5.8-9), as
// OpenSM's QoS setup does it, plus what a routing engine asks for:
//  - Only with `qos` TRUE are tables planned from the qos_* keys (OpenSM's
//    rule: with qos FALSE it programs none and the ports keep theirs).
//    Then every switch external port that is cabled gets the swe class's
//    VLArb blocks and an SL2VL table for each input port (0 and every
//    cabled one); an enhanced switch port 0 the sw0 class's VLArb and its
//    own SL2VL; every cabled CA port the ca class's (a router's the rtr
//    class's). An SL2VL table is planned only where the port (a switch's
//    port 0) sets CapabilityMask.IsSLMappingSupported.
//  - A VL above the output port's OperationalVLs is masked down to them
//    as OpenSM does (VL & (2^(OperationalVLs-1) - 1)); VL15 stays (drop).
//  - VLArb blocks as the caps allow: low 0-31 while VLArbitrationLowCap >
//    0, low 32-63 beyond 32, the same for high; entries beyond the cap 0.
//  - The policy file's qos-setup scopes (sm/fabric/qos_policy.h) apply
//    over the keys, in file order, to the ports their groups name (port
//    groups by GUID, name, node type; partitions are not known here).
//  - Tables an engine returns (RoutingEngine::sl2vl, vl_arbitration) replace
//    the planned ones for their ports and are programmed whatever `qos`
//    says: a routing that relies on its VLs is deadlock-free only with them.
//    They are not masked; an SL mapped to a VL the port does not run is
//    reported as a sweep problem (the routing's promise is then broken).
// Pure planning here; program_vl_tables sends only what differs from what
// the ports hold (read first when the SM has no memory of them).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/wire/port_info.h"
#include "mad/wire/sl_to_vl_table.h"
#include "mad/wire/switch_info.h"
#include "mad/wire/vl_arbitration_table.h"
#include "routing/engine.h"
#include "sm/discovery/discovery.h"
#include "sm/fabric/qos_policy.h"
#include "sm/fabric/qos_tables.h"
#include "sm/sweep/sweep_problem.h"
#include "sm/sweep/vl_memory.h"

namespace ibsm {

class SmpIssuer;

struct VlSettings {
  bool qos = false;  // the qos key: plan from `tables`
  QosTables tables;
  // The QoS policy (its qos-setup section); null: none. Used with qos TRUE.
  std::shared_ptr<const QosPolicy> policy;
  PortRef sm_port;  // the SM's port, for the policy's SELF groups (the sweep fills it)
};

struct Sl2VlWant {
  NodeIndex node;
  uint8_t in_port = 0;   // a CA port: the port itself
  uint8_t out_port = 0;
  wire::SlToVlTable table;
};

struct VlArbWant {
  NodeIndex node;
  uint8_t port = 0;   // the port it is for (a CA's modifier names none)
  uint32_t part = 0;  // wire::vl_arbitration_part
  wire::VlArbitrationTable block;
};

struct VlPlan {
  std::vector<Sl2VlWant> sl2vl;
  std::vector<VlArbWant> vlarb;
  std::vector<SweepProblem> problems;
};

// The port class a port is configured as (OpenSM's qos_ca/sw0/swe/rtr).
QosPortClass qos_port_class(const Node& node, uint8_t port);
// PortInfo:VLHighLimit to program on a port: the class's qos_*_high_limit
// with qos TRUE, else nullopt (left as the port has it).
std::optional<uint8_t> wanted_vl_high_limit(const VlSettings& settings, const Fabric& fabric, NodeIndex node,
                                            uint8_t port);

// `held`: PortInfo as each port holds it after the port programming (its
// OperationalVLs and caps); `switch_info` by NodeIndex.
VlPlan plan_vl_tables(const Fabric& fabric, const std::vector<std::vector<wire::PortInfo>>& held,
                      const std::vector<wire::SwitchInfo>& switch_info, const VlSettings& settings,
                      const std::optional<std::vector<routing::Sl2VlTable>>& engine_sl2vl,
                      const std::optional<std::vector<routing::VlArbTable>>& engine_vlarb);

struct VlProgrammingCounts {
  uint64_t sl2vl_sets = 0;
  uint64_t vlarb_sets = 0;
  uint64_t tables_read = 0;  // Gets of tables the SM had no memory of
};

// Drops what the SM remembers of ports that may have been reset since
// (an end port found not ACTIVE, a switch found with LinearFDBTop 0).
void forget_reset_vl_tables(const DiscoveryResult& found, VlTablesMemoryMap& memory);

// Reads the planned tables the SM has no memory of, then sets those that
// differ from what the ports hold; the answers are remembered. A table
// that gets no good answer is forgotten, so the next sweep reads it again.
VlProgrammingCounts program_vl_tables(SmpIssuer& smp, const DiscoveryResult& found, const VlPlan& plan,
                                      VlTablesMemoryMap& memory);

}  // namespace ibsm
