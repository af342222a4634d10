// Small text scanners for the topology-file reader. They follow the C library
// calls ibsim parses with (strtoul with base 0, strstr, sscanf), so the reader
// reads numbers and LIDs exactly as ibsim does.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "mad/base/text.h"

namespace ibsm::netfile_text {

using ibsm::is_space;
using ibsm::trim;

constexpr std::string_view skip_space(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

// ibsim's limit on a node name (sim.h: 65-byte node ids, the NUL included): the reader
// refuses a longer one, and the writer quotes none longer.
constexpr size_t kMaxNameLength = 64;

struct Number {
  uint64_t value = 0;
  size_t used = 0;  // characters consumed, leading blanks included; 0 when no digits
};

// Like strtoull(s, &end, base) for base 0, 10 or 16: leading blanks, then
// with base 0 "0x.." hex, "0.." octal or decimal; with base 16 an optional
// "0x". Saturates on overflow. scan_unsigned after the blanks.
Number parse_c_number(std::string_view s, int base = 0);

// The text after the first occurrence of `needle`, like strstr(s, needle) + strlen(needle).
constexpr std::optional<std::string_view> find_after(std::string_view s, std::string_view needle) {
  const size_t at = s.find(needle);
  if (at == std::string_view::npos) return std::nullopt;
  return s.substr(at + needle.size());
}

// "lid 3 4xQDR": what sscanf(s, "lid %d %dx%9s") reads, the width number and
// the speed word; nullopt when it does not match.
struct LidRate {
  long lid = 0;
  long width = 0;
  std::string_view speed;
};
std::optional<LidRate> parse_lid_rate(std::string_view s);

}  // namespace ibsm::netfile_text
