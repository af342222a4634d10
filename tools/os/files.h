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
// Replaces `path` with `text` so that a crash at any moment leaves either
// the old file or the new one, never part of one: a temporary file beside
// it, written and fsynced, renamed over it, and the folder fsynced so the
// rename itself survives a power loss.
Status write_file_atomically(const std::string& path, std::string_view text);
// The same for a file produced in parts: `produce` calls `put` with each
// part in order, so a big file (the switch tables of 42k LIDs are some
// 300 MB) never sits in memory whole.
using PutText = std::function<void(std::string_view)>;
Status write_file_atomically(const std::string& path, const std::function<void(const PutText& put)>& produce);
// Appends `text` to `path` (created if missing) and fsyncs it before
// returning: a journal's records, each on the disk once this succeeds. A
// crash mid-append can leave a torn last line; the reader must expect one.
Status append_file_synced(const std::string& path, std::string_view text);
// Streams what `write` produces to `path` (stdout when empty or "-"), so a
// dump of a big fabric (gigabytes of LFT lines at 45k endpoints) never sits
// in memory whole.
Status write_stream_output(const std::string& path, const std::function<void(std::ostream&)>& write);
// Reads a netfile (ibsim or ibnetdiscover format) from disk, resolving
// `include` lines relative to the file's folder.
Result<Fabric> load_netfile(const std::string& path);

}  // namespace ibsm
