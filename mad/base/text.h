// Text helpers every reader of files and flags shares: one trim, and one way
// to quote a value in an error message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ibsm {

// The C library's isspace in the "C" locale.
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

constexpr std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A value for a one-line message, in single quotes: blanks and line breaks
// folded to one space, and cut after `max` characters with how long it was
// ("'AAAA...' (20971520 bytes)"), so a 20 MB line never becomes a 20 MB
// message.
std::string quoted(std::string_view value, size_t max = 60);

}  // namespace ibsm
