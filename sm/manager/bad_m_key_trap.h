// Trap 256, Bad M_Key (IBA 14.2.5.1): a port refused an SMP because it did
// not carry the port's M_Key. The SM logs who was refused where: the port
// that trapped (by GUID, when the last sweep knows its LID) and the
// requester (its LID, or the directed route back to it), with the method,
// attribute and M_Key it tried. Pure: the manager logs the line.
#pragma once

#include <string>

#include "mad/wire/notice.h"
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm {

// "bad m_key (trap 256) at switch 0x... (lid 3): lid 7 tried Set PortInfo
// (attribute 0x0015, modifier 0x00000000) with m_key 0x..., directed route
// back 2,2". `subnet` may be null.
std::string describe_bad_m_key(const wire::Notice& notice, const SubnetSnapshot* subnet);

}  // namespace ibsm
