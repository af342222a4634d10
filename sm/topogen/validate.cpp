#include "sm/topogen/validate.h"

#include <fmt/format.h>

namespace ibsm::topogen {

uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

uint64_t add_sat(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

Status check_at_least(std::string_view name, uint64_t value, uint64_t min) {
  if (value >= min) return {};
  return invalid_argument_error(fmt::format("{} must be at least {} (got {})", name, min, value));
}

Status check_switch_ports(std::string_view what, uint64_t ports) {
  if (ports >= 1 && ports <= kMaxSwitchPorts) return {};
  return invalid_argument_error(
      fmt::format("a {} would need {} ports; a switch has 1..{}", what, ports, kMaxSwitchPorts));
}

Status check_radix(uint32_t radix, uint64_t needed) {
  if (radix == 0) return {};
  if (radix > kMaxSwitchPorts) {
    return invalid_argument_error(fmt::format("radix {} is more than a switch's {} ports", radix, kMaxSwitchPorts));
  }
  if (radix < needed) {
    return invalid_argument_error(fmt::format("radix {} is too small: switches need {} ports", radix, needed));
  }
  return {};
}

Status check_link(const LinkOptions& link) {
  switch (link.width) {
    case link_width::x1: case link_width::x2: case link_width::x4: case link_width::x8: case link_width::x12: break;
    default: return invalid_argument_error(fmt::format("link width code {} is not one of 1x, 2x, 4x, 8x, 12x", link.width));
  }
  switch (link.speed) {
    case link_speed::sdr: case link_speed::ddr: case link_speed::qdr: break;
    default: return invalid_argument_error(fmt::format("link speed code {} is not SDR, DDR or QDR", link.speed));
  }
  switch (link.speed_ext) {
    case link_speed_ext::none: case link_speed_ext::fdr: case link_speed_ext::edr:
    case link_speed_ext::hdr: case link_speed_ext::ndr: break;
    default: return invalid_argument_error(fmt::format("extended link speed code {} is not FDR, EDR, HDR or NDR", link.speed_ext));
  }
  return {};
}

Status check_size(const SizeEstimate& size) {
  if (size.nodes() <= kMaxNodes) return {};
  return invalid_argument_error(fmt::format("the fabric would have {} nodes, more than the generator's limit of {}",
                                            size.nodes(), kMaxNodes));
}

}  // namespace ibsm::topogen
