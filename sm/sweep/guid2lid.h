// The persisted GUID-to-LID map in OpenSM's guid2lid file format, so that a
// restart gives every port the LID it had, and an operator can move a cache
// between OpenSM and ibsm in either direction.
//
// OpenSM's format (osm_db_files.c, osm_db_pack.c, OpenSM 3.3): one record per
// port, "<port guid> <min lid> <max lid>", the GUID as 0x%016x and the LIDs as
// 0x%04x, each record followed by an empty line. [min, max] is the port's LID
// block: one LID for a switch's base port 0, 2^LMC for other ports. OpenSM's
// reader is a key/value store: a line starting in column 0 opens a record,
// further non-empty lines continue its value and an empty line closes it, so
// the empty lines matter to OpenSM (without them it glues the next record
// onto this one's value). It looks records up by the exact text
// "0x%016" PRIx64, keeps the first of two records for the same GUID, skips a
// record whose key is not a number, stops reading at a line that starts with
// whitespace where a key is expected, and later drops a range that is empty,
// starts at LID 0, ends above the unicast range or overlaps another one.
//
// Here: the writer produces exactly OpenSM's layout. The reader is line based
// and lenient where that cannot hurt (blank lines, leading whitespace, CRLF,
// '#' comments, upper-case hex) and skips a bad line with a warning naming
// source:line instead of failing: the file is a cache, and an SM that refuses
// to start over a cache line would take the whole subnet down, while a
// skipped line at worst moves one port's LID (and only if the port does not
// hold that LID already, since the sweep keeps valid current LIDs first).
// The warnings are for the operator's log; assign_lids() applies the checks
// that depend on the fabric and options (alignment to the LMC, the LID range,
// overlaps between records).
#pragma once

#include <cstddef>
#include <istream>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm {

// A port's LID block: base LID `min` and the last LID `max` (min + 2^LMC - 1).
struct LidRange {
  Lid min;
  Lid max;
  constexpr unsigned count() const { return unsigned{max.value} - min.value + 1; }
  constexpr bool operator==(const LidRange&) const = default;
};

// Port GUID -> LID block; ordered so that writing it is deterministic.
using Guid2Lid = std::map<Guid, LidRange>;

struct Guid2LidFile {
  Guid2Lid entries;
  // "guid2lid:7: expected '<port guid> <min lid> <max lid>', got 2 fields"
  std::vector<std::string> warnings;
  size_t skipped_lines = 0;  // malformed or duplicate records that were left out
};

// At most this many skipped lines are described one by one; one more warning
// then counts the rest, so a wrong file does not flood the log.
inline constexpr size_t kGuid2LidMaxWarnings = 20;

// Why `range` is not a LID block a port can hold ("min lid 0 is not a unicast
// lid"), or an empty string when it is one: inside 0x0001-0xBFFF, 2^n LIDs
// with n <= 7, and the base a multiple of 2^n.
std::string lid_block_problem(const LidRange& range);

// Reads a guid2lid file. Fails only when the stream itself fails (an I/O
// error); every bad line is skipped and reported in `warnings`. A record is
// kept when its GUID is non-zero and its range is a LID block (above).
// Numbers are C literals as OpenSM's strtoull(.., 0) reads them: 0x-hex or decimal.
Result<Guid2LidFile> parse_guid2lid(std::istream& in, std::string_view source_name);

// Writes `map` in OpenSM's layout, in GUID order: "0x%016x 0x%04x 0x%04x\n\n".
void write_guid2lid(const Guid2Lid& map, std::ostream& out);

}  // namespace ibsm
