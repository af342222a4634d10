// The M_Key each directed route's SMPs carry after a heavy sweep, read from
// what the ports hold in the sweep's snapshot (IBA 14.2.4): for the light
// sweep and the multicast programming, which talk to the subnet the heavy
// sweep left.
#pragma once

#include "sm/fabric/m_keys.h"
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm {

// A switch's path carries its port 0's key; the path into a CA port (from
// the switch at its other end, or the SM's own port) that port's key. Empty
// when no port holds a key.
MKeyPaths m_key_paths(const SubnetSnapshot& subnet);

}  // namespace ibsm
