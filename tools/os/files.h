// Reading and writing whole files for the tools (the core never opens files).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

Result<std::string> read_text_file(const std::string& path);
// Writes `text` to `path`, or to stdout when path is empty or "-".
Status write_text_output(const std::string& path, std::string_view text);
// Streams what `write` produces to `path` (stdout when empty or "-"), so a
// dump of a big fabric (gigabytes of LFT lines at 45k endpoints) never sits
// in memory whole.
Status write_stream_output(const std::string& path, const std::function<void(std::ostream&)>& write);
// Reads a netfile (ibsim or ibnetdiscover format) from disk, resolving
// `include` lines relative to the file's folder.
Result<Fabric> load_netfile(const std::string& path);

}  // namespace ibsm
