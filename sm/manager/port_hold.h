// Writing one switch port's PortPhysicalState, for the flap quarantine: a
// Get of its PortInfo, then a Set that writes back what the port holds with
// only PortPhysicalState changed (IBA 14.2.5.6: Disabled takes the link down
// and keeps it down; Polling lets it train again). Asynchronous on the
// dispatcher: `done` runs with the outcome once the Set is answered.
#pragma once

#include <functional>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/dispatcher.h"
#include "mad/wire/port_info.h"

namespace ibsm {

void set_port_phys_state(MadDispatcher& dispatcher, const DrPath& switch_path, PortNum port, PhysState phys,
                         std::function<void(Status)> done);

}  // namespace ibsm
