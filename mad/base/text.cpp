#include "mad/base/text.h"

#include <fmt/format.h>

namespace ibsm {

std::string quoted(std::string_view value, size_t max) {
  std::string out = "'";
  size_t i = 0;
  for (; i < value.size(); ++i) {
    const bool blank = is_space(value[i]);
    if (blank && out.back() == ' ') continue;  // folded into the blank before
    if (out.size() - 1 == max) break;
    out.push_back(blank ? ' ' : value[i]);
  }
  if (i < value.size()) return fmt::format("{}...' ({} bytes)", out, value.size());
  out.push_back('\'');
  return out;
}

}  // namespace ibsm
