// Reading unicast forwarding tables back from a dump: what `dump_lfts` (and
// `dump_fts`) and `ibroute` from infiniband-diags 44 print for each switch,
// and OpenSM's opensm-lfts.dump (write_opensm_lfts_dump writes it). The two
// formats look alike and are told apart by their switch headers:
//
//   Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,3 guid 0x0000000000200001 (Switch2):
//     Lid  Out   Destination
//          Port     Info
//   0x0001 003 : (Switch portguid 0x0000000000200000: 'Switch1')
//   0x0003 000 : (path #2 out of 2: portguid 0x0000000000100001)
//   2 valid lids dumped
//
//   Unicast lids [0-6] of switch Lid 3 guid 0x0000000000200001 ('Switch2'):
//   0x0001 003 # Switch portguid 0x0000000000200000: 'Switch1'
//   6 lids dumped
//
// The reader takes what the file lists and nothing more: dump_lfts/ibroute
// skip entries without a valid port (unless run with -a, which lists them with
// port 255) and stop one LID short of LinearFDBTop when it is a multiple of
// 64, so a LID the file does not list simply has no entry. Brief output (-n),
// the tools' own warnings ("ibwarn: ...", dump_lfts's "*** WARNING ***" note),
// blank lines and '#' comments are accepted. A trailer ("6 valid lids dumped",
// "6 lids dumped") must agree with its section, which catches cut or edited
// files. Anything else is an error, "source:line: problem".
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"

namespace ibsm {

enum class LftDumpFormat : uint8_t {
  diag_tools,  // dump_lfts, dump_fts, ibroute: hex LID range, "(description)"
  opensm,      // opensm-lfts.dump: decimal LID range, "('description')"
};
const char* lft_dump_format_name(LftDumpFormat format);  // "dump_lfts", "opensm-lfts.dump"

struct LftDumpEntry {
  Lid lid;
  uint8_t port = 0;  // as listed; 255 (from `-a`) means no route
  // The destination's port GUID when the line names it ("portguid 0x..."):
  // lets a reader move the route to the LID that port has now, as OpenSM's
  // file engine does.
  std::optional<Guid> port_guid;
  size_t line = 0;
};

struct LftDumpSwitch {
  Guid node_guid;
  std::optional<Lid> lid;         // "Lid 3" in the header (ibroute by LID, OpenSM's dump)
  std::optional<DrPath> dr_path;  // "DR path slid 0; dlid 0; 0,3" (dump_lfts)
  std::string description;
  uint16_t first_lid = 0;  // the LID range the header announces
  uint16_t last_lid = 0;
  std::vector<LftDumpEntry> entries;  // in file order, each LID at most once
  size_t line = 0;                    // the header's line

  // The forwarding table the entries describe, indexed by LID from 0 to
  // last_lid, with 0xFF where no entry names a port.
  std::vector<uint8_t> table() const;
};

struct LftDump {
  std::optional<LftDumpFormat> format;  // none when the file lists no switch
  std::vector<LftDumpSwitch> switches;  // in file order, each node GUID once

  const LftDumpSwitch* find(Guid node_guid) const;
};

Result<LftDump> parse_lft_dump(std::istream& in, std::string_view source_name);

// Writes `lfts` (by NodeIndex, indexed by LID, 0xFF: no route) in the
// diag-tools format, as `ibroute <switch lid>` prints each switch and the
// way `dump_lfts` collects them: a header naming the switch by LID, one line
// per LID with a route ("0x0005 003 : (Channel Adapter portguid 0x...: 'h1')",
// "(path #2 out of 4: portguid 0x...)" for the further LIDs of an LMC
// block), and "N valid lids dumped". Every switch of `fabric` is listed, in
// node order, each up to the subnet's top LID. parse_lft_dump reads it back,
// and so does OpenSM's file engine (-U).
void write_lft_dump(const Fabric& fabric, LftSet lfts, std::ostream& out);

}  // namespace ibsm
