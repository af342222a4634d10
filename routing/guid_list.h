// GUID list files as OpenSM reads them for its routing options (the
// root_guid_file of updn and ftree, and the like): one GUID per line,
// written as 0x-prefixed hex; '#' starts a comment that runs to the end of
// the line; blank lines are ignored. The core parses from a stream; opening
// the file is the tools' job.
#pragma once

#include <istream>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm::routing {

// The GUIDs in file order, repeats dropped. Fails on the first line that is
// not a single 0x-prefixed hex GUID of at most 16 digits (or is zero), with a
// message naming `source` and the line number ("roots.txt:3: ...").
Result<std::vector<Guid>> parse_guid_list(std::istream& in, std::string_view source);

}  // namespace ibsm::routing
