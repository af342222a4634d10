#include "sm/fabric/netfile_text.h"

#include <charconv>

namespace ibsm::netfile_text {
namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// sscanf's %d: blanks, an optional sign, at least one digit.
std::optional<long> scan_int(std::string_view& s) {
  s = skip_space(s);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || digit_value(s.front()) > 9) return std::nullopt;
  long v = 0;
  while (!s.empty() && digit_value(s.front()) <= 9) {
    if (v < 100000000) v = v * 10 + digit_value(s.front());
    s.remove_prefix(1);
  }
  return negative ? -v : v;
}

}  // namespace

Number parse_c_number(std::string_view s, int base) {
  const size_t blanks = s.size() - skip_space(s).size();
  std::string_view rest = s.substr(blanks);
  size_t prefix = 0;
  const bool hex_prefix = rest.size() > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') &&
                          digit_value(rest[2]) < 16;
  if (base == 0) {
    if (hex_prefix) {
      base = 16;
      prefix = 2;
    } else {
      base = (!rest.empty() && rest[0] == '0') ? 8 : 10;
    }
  } else if (base == 16 && hex_prefix) {
    prefix = 2;
  }
  rest.remove_prefix(prefix);
  Number n;
  size_t digits = 0;
  const auto b = static_cast<uint64_t>(base);
  while (digits < rest.size() && digit_value(rest[digits]) < base) {
    const auto d = static_cast<uint64_t>(digit_value(rest[digits]));
    n.value = n.value > (UINT64_MAX - d) / b ? UINT64_MAX : n.value * b + d;
    ++digits;
  }
  n.used = digits == 0 ? 0 : blanks + prefix + digits;
  return n;
}

std::optional<uint64_t> parse_whole_c_number(std::string_view s, uint64_t max) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value, base);  // out of range is an error, not a saturation
  if (ec != std::errc{} || ptr != end || value > max) return std::nullopt;
  return value;
}

std::optional<LidRate> parse_lid_rate(std::string_view s) {
  if (!s.starts_with("lid")) return std::nullopt;
  s.remove_prefix(3);
  LidRate r;
  auto lid = scan_int(s);
  if (!lid) return std::nullopt;
  auto width = scan_int(s);
  if (!width || !s.starts_with('x')) return std::nullopt;
  s = skip_space(s.substr(1));
  size_t n = 0;
  while (n < s.size() && n < 9 && !is_space(s[n])) ++n;
  if (n == 0) return std::nullopt;
  r.lid = *lid;
  r.width = *width;
  r.speed = s.substr(0, n);
  return r;
}

}  // namespace ibsm::netfile_text
