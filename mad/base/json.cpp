#include "mad/base/json.h"

#include <iterator>

namespace ibsm {

void append_json_string(fmt::memory_buffer& out, std::string_view s) {
  auto it = std::back_inserter(out);
  *it++ = '"';
  for (char c : s) {
    switch (c) {
      case '"': fmt::format_to(it, "\\\""); break;
      case '\\': fmt::format_to(it, "\\\\"); break;
      case '\n': fmt::format_to(it, "\\n"); break;
      case '\t': fmt::format_to(it, "\\t"); break;
      default:
        // Other control characters must be escaped too (RFC 8259 section 7).
        if (static_cast<unsigned char>(c) < 0x20) fmt::format_to(it, "\\u{:04x}", static_cast<unsigned>(c));
        else *it++ = c;
    }
  }
  *it++ = '"';
}

}  // namespace ibsm
