// Text helpers every reader of files and flags shares: one trim, one number
// parser, one GUID parser, and one way to quote a value in an error message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/types.h"

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

// How a number is written. Every reader of files and flags names the
// notation of its format; the one parser below reads them all.
enum class Notation : uint8_t {
  c,                // C, as strtoull(.., 0) reads: decimal, "0x" hex, leading-0 octal
  decimal_or_hex,   // decimal, or hex after "0x"; a leading 0 is not octal (OpenSM's
                    // opensm.conf and qos-policy.conf, saquery's field values)
  decimal,          // decimal digits only
  hex,              // hex digits, no prefix
  hex_optional_0x,  // hex digits, after an optional "0x" (strtoull(.., 16))
  hex_0x,           // hex digits after a required "0x"
};

// What scan_unsigned read at the front of a text.
struct NumberScan {
  uint64_t value = 0;     // UINT64_MAX when it overflowed (strtoull saturates)
  size_t used = 0;        // characters read, the prefix included; 0 when no digits
  bool overflow = false;  // more than 64 bits
};

// The number at the front of `text` in `notation`, as far as its digits
// go, like strtoull(text, &end, base) but for blanks and a sign (neither
// is read). "0x" not followed by a hex digit is no prefix: with C notation
// "0xg" reads the 0, as strtoull does.
NumberScan scan_unsigned(std::string_view text, Notation notation);

// The whole of `text` as one unsigned number in `notation`, at most `max`;
// nullopt for anything else (empty, blanks, a sign, trailing text, more
// than `max`). The one number parser of the core.
std::optional<uint64_t> parse_unsigned(std::string_view text, Notation notation, uint64_t max = UINT64_MAX);

// The whole of `text` as a decimal number with an optional '-' (no '+'), in
// [min, max]; nullopt for anything else. parse_unsigned with a sign.
std::optional<int64_t> parse_signed(std::string_view text, int64_t min = INT64_MIN, int64_t max = INT64_MAX);

// The GUID's own notation: "0x" and 1 to 16 hex digits, as the diag tools
// and OpenSM print GUIDs ("0x0002c90300001234").
inline constexpr size_t kGuidHexDigits = 16;

// The whole of `text` as a GUID: a 64-bit number in `notation`; with
// hex_0x (the default, the GUID's own notation) at most 16 digits after
// the "0x". nullopt for anything else. A zero GUID is read: refusing it
// (Guid::is_zero) is the caller's, each with its own message. The one GUID
// parser of the core.
std::optional<Guid> parse_guid(std::string_view text, Notation notation = Notation::hex_0x);

// A value for a one-line message, in single quotes: blanks and line breaks
// folded to one space, and cut after `max` characters with how long it was
// ("'AAAA...' (20971520 bytes)"), so a 20 MB line never becomes a 20 MB
// message.
std::string quoted(std::string_view value, size_t max = 60);

// Two lower-case hex digits per byte, appended: the SM cache's switch
// tables and journal blocks, the SA cache's records.
void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes);

}  // namespace ibsm
