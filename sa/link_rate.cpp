#include "sa/link_rate.h"

#include <array>

namespace ibsm::sa {
namespace {

struct RateRow {
  uint8_t code;
  uint32_t mbps;
};
// IBA 15.2.5.16 table (Rate), with the codes the later annexes added.
constexpr std::array<RateRow, 23> kRates{{
    {2, 2500},     {5, 5000},     {3, 10000},    {11, 14000},   {6, 20000},    {15, 25000},
    {19, 28000},   {4, 30000},    {7, 40000},    {20, 50000},   {12, 56000},   {8, 60000},
    {9, 80000},    {16, 100000},  {13, 112000},  {10, 120000},  {14, 168000},  {17, 200000},
    {18, 300000},  {21, 400000},  {22, 600000},  {23, 800000},  {24, 1200000},
}};

// By code, for the per-hop comparisons of path tracing.
constexpr std::array<uint32_t, 64> kMbpsByCode = [] {
  std::array<uint32_t, 64> t{};
  for (const RateRow& r : kRates) t[r.code] = r.mbps;
  return t;
}();

}  // namespace

uint32_t rate_mbps(uint8_t code) { return code < kMbpsByCode.size() ? kMbpsByCode[code] : 0; }

uint8_t rate_code_at_most(uint32_t mbps) {
  uint8_t best = 0;  // kRates ascends by speed
  for (const RateRow& r : kRates)
    if (r.mbps <= mbps) best = r.code;
  return best;
}

uint8_t rate_code_below(uint8_t code) {
  const uint32_t mbps = rate_mbps(code);
  return mbps == 0 ? 0 : rate_code_at_most(mbps - 1);
}

uint32_t link_mbps(uint8_t width, uint8_t speed, uint8_t speed_ext) {
  uint32_t lanes = 0;
  switch (width) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return 0;
  }
  uint32_t lane = 0;
  if (speed_ext != 0) {
    switch (speed_ext) {
      case 1: lane = 14000; break;   // FDR (14.0625 Gb/s, nominally 14)
      case 2: lane = 25000; break;   // EDR
      case 4: lane = 50000; break;   // HDR
      case 8: lane = 100000; break;  // NDR
      default: return 0;
    }
  } else {
    switch (speed) {
      case 1: lane = 2500; break;
      case 2: lane = 5000; break;
      case 4: lane = 10000; break;
      default: return 0;
    }
  }
  return lanes * lane;
}

uint8_t port_rate_code(const wire::PortInfo& info) {
  const bool ext = (info.capability_mask & wire::port_cap::is_extended_speeds_supported) != 0;
  return rate_code_at_most(link_mbps(info.link_width_active, info.link_speed_active,
                                     ext ? info.link_speed_ext_active : uint8_t{0}));
}

}  // namespace ibsm::sa
