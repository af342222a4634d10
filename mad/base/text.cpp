#include "mad/base/text.h"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

namespace ibsm {

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool parse_c_unsigned(std::string_view text, uint64_t max, uint64_t& value) {
  if (text.empty() || text.front() == '-' || text.front() == '+' || is_space(text.front())) return false;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (end != s.c_str() + s.size() || errno != 0 || v > max) return false;
  value = v;
  return true;
}

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
