// JSON text for the few places that print it (topology dumps, the
// manager's status): a string quoted and escaped as RFC 8259 section 7
// requires. Writers build their objects with fmt around it.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace ibsm {

void append_json_string(fmt::memory_buffer& out, std::string_view s);

}  // namespace ibsm
