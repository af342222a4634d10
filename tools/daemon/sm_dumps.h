// Writes the OpenSM-format dump files of a sweep (opensm-subnet.lst,
// opensm.fdbs, opensm.mcfdbs, opensm-lfts.dump) into a folder, so ibdmchk and
// the `file` routing engine can read what ibsm configured.
#pragma once

#include <string>

#include "mad/base/status.h"
#include "sm/fabric/multicast_tables.h"
#include "sm/manager/subnet_manager.h"
#include "sm/sweep/heavy_sweep.h"

namespace ibsm::tools {

// `multicast`: the MFTs programmed on report.subnet (null: none, an empty mcfdbs).
Status write_sm_dumps(const std::string& dir, const SweepReport& report, const MulticastTables* multicast = nullptr);
// The dumps of the manager's last sweep that configured the subnet, with
// the MFTs when the multicast step programmed that very snapshot.
Status write_sm_dumps(const std::string& dir, const SubnetManager& sm);
// opensm.mcfdbs alone: after joins and leaves, between sweeps.
Status write_mcfdbs_dump(const std::string& dir, const Fabric& fabric, const MulticastTables& multicast);

}  // namespace ibsm::tools
