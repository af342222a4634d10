// Who owns which LID in a fabric as its ports record them: the checks
// `ibsm check` runs on a topology and its LIDs (every port that should own
// LIDs has some, no LID has two owners), the LIDs of a guid2lid map put on
// the ports, and the port that holds a given LID. Pure functions of a
// fabric; the sweep's own LID assignment is lid_assignment.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mad/base/types.h"
#include "sm/fabric/fabric.h"
#include "sm/sweep/guid2lid.h"

namespace ibsm {

// Gives every port in `map` its LID block (base LID and the LMC its block
// size says); the others keep what they had.
void apply_guid2lid(Fabric& fabric, const Guid2Lid& map);

// The LID-owning ports (a switch's port 0, a CA's connected ports) without
// a LID, and every LID two of them hold, one readable line each:
// "0x... port 1 ('name') has no lid", "lid 5 is held by 0x... port 1 and
// 0x... port 0". Empty: every port has its own.
std::vector<std::string> lid_problems(const Fabric& fabric);

// The LID-owning port whose block holds `lid` (the first in node order);
// nullopt when none does.
std::optional<PortRef> port_with_lid(const Fabric& fabric, Lid lid);

}  // namespace ibsm
