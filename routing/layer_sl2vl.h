// SL2VL tables for an engine that puts paths on layers, one SL each (dfsssp,
// lash): SL s travels on VL s % layers at every port, so a packet keeps its
// layer's VL end to end and each layer's channel dependency graph is the one
// the engine made acyclic. The sweep programs only tables an engine gives
// (or those of `qos TRUE`), so such an engine must give these: the port's
// power-on mapping is not the identity everywhere (IBA 7.6.6 leaves it to the
// vendor).
#pragma once

#include <cstdint>
#include <vector>

#include "routing/engine.h"

namespace ibsm::routing {

// One table for every switch's (in-port, out-port) pair with a cable on the
// out-port and on the in-port (or in-port 0, the switch's own packets), and
// one for every cabled CA or router port (in = out = the port); every table
// maps SL s to VL s % layers (layers 1..15; 0 counts as 1).
std::vector<Sl2VlTable> layer_sl2vl_tables(const Fabric& fabric, uint8_t layers);

}  // namespace ibsm::routing
