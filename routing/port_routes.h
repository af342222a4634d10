// The routed load of one direction of a cable: how many CA-to-CA routes the
// route checker (routing/route_check.h) found leaving a switch port. Its own
// small header so the sweep report and the status page can carry the loads
// without the checker.
#pragma once

#include <cstdint>

#include "sm/fabric/fabric.h"

namespace ibsm::routing {

struct PortRoutes {
  PortRef port;              // a switch port with a usable cable
  uint64_t routes = 0;       // delivered routes leaving it
  bool to_switch = false;    // its cable leads to a switch (else to an endpoint: routes into that CA port)
};

}  // namespace ibsm::routing
