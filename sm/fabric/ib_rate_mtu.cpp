#include "sm/fabric/ib_rate_mtu.h"

#include <array>

#include "mad/base/text.h"

namespace ibsm {
namespace {

// A plain decimal number without sign or base prefix: config codes are small,
// and "010" should not turn octal here.
std::optional<unsigned> parse_decimal(std::string_view s) {
  const auto v = s.size() > 5 ? std::nullopt : parse_unsigned(s, Notation::decimal);
  if (!v) return std::nullopt;
  return static_cast<unsigned>(*v);
}

constexpr std::array<IbRate, 23> kRates{{
    {2, 2500},     {5, 5000},     {3, 10000},    {11, 14000},   {6, 20000},    {15, 25000},
    {19, 28000},   {4, 30000},    {7, 40000},    {20, 50000},   {12, 56000},   {8, 60000},
    {9, 80000},    {16, 100000},  {13, 112000},  {10, 120000},  {14, 168000},  {17, 200000},
    {18, 300000},  {21, 400000},  {22, 600000},  {23, 800000},  {24, 1200000},
}};

// By code, for the per-hop comparisons of path tracing.
constexpr std::array<uint32_t, 64> kMbpsByCode = [] {
  std::array<uint32_t, 64> t{};
  for (const IbRate& r : kRates) t[r.code] = r.mbps;
  return t;
}();

// "2.5" for 2500 Mb/s, "40" for 40000: how operators write a rate in Gb/s.
bool names_gbps(std::string_view number, uint32_t mbps) {
  const uint32_t whole = mbps / 1000, tenths = (mbps % 1000) / 100;
  const auto w = parse_decimal(number.substr(0, number.find('.')));
  if (!w || *w != whole) return false;
  if (number.find('.') == std::string_view::npos) return tenths == 0;
  const auto t = parse_decimal(number.substr(number.find('.') + 1));
  return t && number.size() == number.find('.') + 2 && *t == tenths;
}

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
  for (const IbRate& r : kRates)
    if (names_gbps(number, r.mbps)) return r.code;
  return std::nullopt;
}

std::span<const IbRate> ib_rates() { return kRates; }

uint32_t rate_mbps(uint8_t code) { return code < kMbpsByCode.size() ? kMbpsByCode[code] : 0; }

}  // namespace ibsm
