#include "mad/base/text.h"

#include <cerrno>
#include <charconv>
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

bool parse_decimal_or_hex(std::string_view text, uint64_t& value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && end == text.data() + text.size();
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
