// Where a tool's client attaches to a SimFabric, the way ibsim attaches
// clients: at the named node (SIM_HOST) or else the topology's first node; a
// switch at its management port 0, a CA or router at port 1.
#pragma once

#include <string>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"

namespace ibsm::tools {

Result<PortRef> sim_attach_point(const Fabric& topology, const std::string& node_name);

}  // namespace ibsm::tools
