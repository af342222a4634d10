// What a sweep leaves configured, as a SubnetSnapshot (sm/fabric/
// subnet_snapshot.h): the pieces the heavy sweep records as it writes, and,
// for a fabric that was never swept (a topology file, a generated fabric in
// a test or benchmark), the same derivation from the model: the PortInfo,
// SwitchInfo and P_Key tables a sweep would leave.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mad/base/status.h"
#include "mad/wire/port_info.h"
#include "mad/wire/switch_info.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/fabric/subnet_snapshot.h"
#include "sm/sweep/partition_plan.h"
#include "sm/sweep/port_settings.h"

namespace ibsm {

// Copies the fields the sweep manages (managed_fields) from what it wrote
// into what the port held, which keeps the rest (caps, widths, counters).
void apply_managed(wire::PortInfo& held, const wire::PortInfo& written);

// SwitchInfo after the sweep's Set: its LinearFDBTop and LifeTimeValue, and
// PortStateChange cleared (writing 1 clears it, IBA 14.2.5.4).
wire::SwitchInfo programmed_switch_info(wire::SwitchInfo read, uint16_t linear_fdb_top, uint8_t life_time);

// Every read port's P_Key table: as `held` has it where it knows it, else
// in the SMA's reset state (reset_p_key_table, sized by p_key_capacity):
// what a port the partition plan leaves alone is taken to hold (the sweep
// never reads those). A port of capacity 0 has none.
PKeyTables reset_p_keys(const Fabric& f, const std::vector<std::vector<wire::PortInfo>>& port_info,
                        const std::vector<wire::SwitchInfo>& switch_info, PartitionCaps caps,
                        const HeldPKeys& held = PKeyTables{});

// A fabric that was not swept: LIDs, LMCs and port states set in `fabric`.
struct SubnetParts {
  Fabric fabric;
  std::vector<std::vector<uint8_t>> lfts;  // by NodeIndex; may be empty
  // By NodeIndex then port, as read; empty: made up from the model (SMA-like
  // caps: MTU 4096, VL0-7, the fabric's widths, speeds and states).
  std::vector<std::vector<wire::PortInfo>> port_info;
  std::vector<wire::SwitchInfo> switch_info;  // by NodeIndex; empty: made up
  std::vector<DrPath> paths;                  // may be empty
  PortRef sm_port;
};

struct SubnetDefaults {
  SubnetSettings subnet;            // sm_lid comes from the SM port's LID
  uint8_t switch_life_time = 0x12;  // SwitchInfo:LifeTimeValue (OpenSM's packet_life_time)
  // NodeInfo:PartitionCap when the model does not know it (0: a fabric from
  // a topology file or a generator).
  PartitionCaps partition_caps;
  // The partitions file as read; null: none (OpenSM's Default partition).
  std::shared_ptr<const PartitionConfig> partitions;
  PartitionOptions partition_options;
};

// The snapshot a sweep would leave on `parts`: each read port's PortInfo
// updated as port_info_update computes it, SwitchInfo as programmed, P_Key
// tables and partition enforcement bits as the partition plan wants them
// (from tables in the reset state). Fails for an SM port outside the fabric or parts of the
// wrong size.
Result<SubnetSnapshot> configured_subnet(SubnetParts parts, const SubnetDefaults& defaults);

}  // namespace ibsm
