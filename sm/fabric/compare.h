// Topology equality: do two fabrics describe the same nodes and cables? Used to
// check a discovered fabric against a topology file or against ibnetdiscover.
#pragma once

#include <string>

#include "sm/fabric/fabric.h"

namespace ibsm {

// True when both fabrics hold the same nodes, matched by node GUID, with the
// same type, port count, port GUIDs (a switch's port 0, a CA's ports 1..n) and
// description, and the same links (each port cabled to the same GUID and port
// number). Names, LIDs, states and rates are not compared. When they differ and
// `why` is given, it receives the first difference, e.g.
// `node 0x0000000000200000 ("Switch1"): port 3 is cabled to 0x0000000000200001[3] in a but is free in b`.
bool same_topology(const Fabric& a, const Fabric& b, std::string* why = nullptr);

}  // namespace ibsm
