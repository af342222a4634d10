// HTML escaping for the status page: node descriptions come from the fabric
// (any SMA may answer any 64 bytes), so every string the page shows from the
// fabric or the config goes through here, in text and in attribute values.
#pragma once

#include <string>
#include <string_view>

namespace ibsm::status {

// & < > " ' as character references; control characters (a description
// may hold any byte) as U+FFFD, so nothing can end an element or an
// attribute early.
std::string html_escape(std::string_view text);

}  // namespace ibsm::status
