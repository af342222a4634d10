#include "sm/fabric/netfile_text.h"

#include <cassert>

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
  assert(base == 0 || base == 10 || base == 16);
  const size_t blanks = s.size() - skip_space(s).size();
  const Notation notation = base == 0 ? Notation::c : base == 10 ? Notation::decimal : Notation::hex_optional_0x;
  const NumberScan scan = scan_unsigned(s.substr(blanks), notation);
  return Number{.value = scan.value, .used = scan.used == 0 ? 0 : blanks + scan.used};
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
