// The SL of every path, beside the LFTs: what `ibsm route --sl` writes and
// `ibsm check --sl` reads, so the channel dependency check of a routing that
// assigns SLs (dfsssp) can run offline. OpenSM dumps no such file (its
// path SLs live in the SA only), so the format is ibsm's own, plain text:
//
//   # ibsm path sls: engine dfsssp; SLID DLID SL, one path a line; unlisted paths are SL 0
//   3 17 1
//   3 18 1
//
// LIDs and SLs in decimal (0x hex is read too), '#' comments and blank lines
// ignored. A path runs from any LID of a port (a CA or router port, or a
// switch's port 0) to any LID of another; only paths off SL 0 are listed.
// Anything else is an error, "source:line: problem".
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string_view>
#include <unordered_map>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

struct PathSlDump {
  // By (SLID << 16 | DLID): the SL of every path off SL 0.
  std::unordered_map<uint32_t, uint8_t> sls;
  uint8_t sl(Lid source, Lid destination) const;
};

// Writes the SL `path_sl` gives every path of `fabric` (from each LID of each
// port with a LID to each LID of every other such port) that is not SL 0.
void write_path_sl_dump(const Fabric& fabric, const std::function<uint8_t(Lid, Lid)>& path_sl,
                        std::string_view engine, std::ostream& out);

// `source` names the stream in error messages.
Result<PathSlDump> parse_path_sl_dump(std::istream& in, std::string_view source);

}  // namespace ibsm
