#include "sm/fabric/ib_rate_mtu.h"

#include <array>

namespace ibsm {
namespace {

// A plain decimal number without sign or base prefix: config codes are small,
// and "010" should not turn octal here.
std::optional<unsigned> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

struct RateName {
  uint8_t code;
  std::string_view gbps;
};
// In code order, so it can be checked against iba_types.h line by line.
constexpr std::array<RateName, 23> rate_names{{
    {2, "2.5"}, {3, "10"},  {4, "30"},   {5, "5"},    {6, "20"},   {7, "40"},
    {8, "60"},  {9, "80"},  {10, "120"}, {11, "14"},  {12, "56"},  {13, "112"},
    {14, "168"}, {15, "25"}, {16, "100"}, {17, "200"}, {18, "300"}, {19, "28"},
    {20, "50"}, {21, "400"}, {22, "600"}, {23, "800"}, {24, "1200"},
}};

}  // namespace

std::optional<uint8_t> parse_mtu_code(std::string_view text) {
  const auto n = parse_decimal(text);
  if (!n) return std::nullopt;
  if (*n >= 1 && *n <= 5) return static_cast<uint8_t>(*n);
  // 256 << (code - 1)
  for (uint8_t code = 1; code <= 5; ++code)
    if (*n == (256u << (code - 1))) return code;
  return std::nullopt;
}

std::optional<uint8_t> parse_rate_code(std::string_view text) {
  if (const auto n = parse_decimal(text)) {
    if (*n >= 2 && *n <= 24) return static_cast<uint8_t>(*n);
    return std::nullopt;
  }
  std::string_view number = text;
  if (number.ends_with("Gb/s")) number.remove_suffix(4);
  else if (number.ends_with('G') || number.ends_with('g')) number.remove_suffix(1);
  else return std::nullopt;
  for (const RateName& r : rate_names)
    if (r.gbps == number) return r.code;
  return std::nullopt;
}

}  // namespace ibsm
