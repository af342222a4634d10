// The SL2VL tables an engine programs (RoutingEngine::sl2vl), beside the LFTs
// and the path SLs: what `ibsm route --sl2vl` writes and `ibsm check --sl2vl`
// reads, so the per-VL dependency check of an engine whose VL changes on the
// way (torus-2QoS's datelines) runs offline. A switch has one table per
// (input port, output port) pair, a CA or router port one for itself (IBA
// 7.6.6, 14.2.5.8). OpenSM dumps no such file, so the format is ibsm's own,
// plain text, one table a line: node GUID, input port, output port, then the
// VL of SL 0 to SL 15, as `smpquery sl2vl` prints a row of one table:
//
//   # ibsm sl2vl tables: engine torus-2QoS; NODEGUID INPORT OUTPORT VL-of-SL0..SL15
//   0x0002c90000000001 1 2 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1
//
// Ports and VLs in decimal (0x hex is read too), GUIDs in hex with 0x,
// '#' comments and blank lines ignored. A CA or router port's line has its
// port as both input and output port; a switch's own packets come in on
// port 0. Anything else is an error, "source:line: problem".
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm {

struct Sl2VlDumpEntry {
  Guid node_guid;
  uint8_t in_port = 0;
  uint8_t out_port = 0;
  std::array<uint8_t, 16> vl_of_sl{};
  size_t line = 0;  // where it was read, for messages
};

struct Sl2VlDump {
  std::vector<Sl2VlDumpEntry> tables;
};

// One line per table, in the order given.
void write_sl2vl_dump(std::span<const Sl2VlDumpEntry> tables, std::string_view engine, std::ostream& out);

// `source` names the stream in error messages. A (node, in port, out port)
// given twice is an error.
Result<Sl2VlDump> parse_sl2vl_dump(std::istream& in, std::string_view source);

}  // namespace ibsm
