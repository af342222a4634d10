// Where the status page draws each switch: in rows by hop distance from the
// CAs, as a fat tree is usually drawn (leaves, then the switches one cable
// above them, up to the spines). Any fabric has such rows: a torus or a
// random graph with CAs everywhere is one row, a fat tree one per level.
#pragma once

#include <cstdint>
#include <vector>

#include "sm/fabric/fabric.h"

namespace ibsm::status {

inline constexpr uint32_t kNoRow = UINT32_MAX;

struct FabricLayout {
  // rows[0]: the switches a CA is cabled to; rows[k]: the switches k cables
  // from the nearest of those; last, the switches no such path reaches (a
  // part of the fabric without CAs). With no CA at all, every switch is in
  // rows[0]. Within a row, the order that keeps cables short: row 0 in
  // fabric order, each row above by where its neighbours below sit.
  std::vector<std::vector<NodeIndex>> rows;
  std::vector<uint32_t> row_of;       // by NodeIndex; kNoRow for CAs and routers
  std::vector<uint32_t> position_of;  // by NodeIndex: the place in its row
};

FabricLayout layout_fabric(const Fabric& fabric);

}  // namespace ibsm::status
