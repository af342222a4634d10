// What the SM remembers of each port's SL2VL and VL arbitration tables
// between sweeps (as last read, or as the answer to the last Set), so a
// resweep of an unchanged fabric sends no SL2VL or VLArb MAD at all.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "mad/base/types.h"
#include "mad/wire/sl_to_vl_table.h"
#include "mad/wire/vl_arbitration_table.h"

namespace ibsm {

struct VlTablesMemory {
  // By (input port << 8 | output port); a CA port's table under (port, port).
  std::unordered_map<uint16_t, wire::SlToVlTable> sl2vl;
  // By (part << 8 | port), part as the attribute modifier's (1-4).
  std::unordered_map<uint32_t, wire::VlArbitrationTable> vlarb;
};

// By node GUID.
using VlTablesMemoryMap = std::unordered_map<Guid, VlTablesMemory>;

}  // namespace ibsm
