// Text helpers every reader of files and flags shares: one trim, and one way
// to quote a value in an error message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm {

// The C library's isspace in the "C" locale.
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The value of a hex digit, -1 for any other character.
constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Lower-case hex digits, by value.
inline constexpr char kHexDigits[] = "0123456789abcdef";

constexpr std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The words of `line`: the runs between blanks (is_space). Every line-based
// file reader splits its lines with this one.
std::vector<std::string_view> split_words(std::string_view line);

// An unsigned number in C notation (decimal, 0x hex, leading-0 octal), at
// most `max`; false for anything else (empty, a sign, trailing text).
bool parse_c_unsigned(std::string_view text, uint64_t max, uint64_t& value);

// An unsigned number in decimal, or in hex after "0x": the whole of `text`
// (no blanks, no sign, no trailing text); false for anything else. A leading
// 0 is not octal here (OpenSM's opensm.conf and qos-policy.conf, saquery's
// field values).
bool parse_decimal_or_hex(std::string_view text, uint64_t& value);

// A value for a one-line message, in single quotes: blanks and line breaks
// folded to one space, and cut after `max` characters with how long it was
// ("'AAAA...' (20971520 bytes)"), so a 20 MB line never becomes a 20 MB
// message.
std::string quoted(std::string_view value, size_t max = 60);

// Two lower-case hex digits per byte, appended: the SM cache's switch
// tables and journal blocks, the SA cache's records.
void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes);

}  // namespace ibsm
