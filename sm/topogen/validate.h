// Parameter checks shared by the generators; each returns invalid_argument
// with a message that names the parameter or the node kind at fault.
#pragma once

#include <cstdint>
#include <string_view>

#include "mad/base/status.h"
#include "sm/topogen/generators.h"

namespace ibsm::topogen {

// a * b, saturating at UINT64_MAX so a huge parameter cannot wrap around
// into a plausible size.
uint64_t mul_sat(uint64_t a, uint64_t b);
uint64_t add_sat(uint64_t a, uint64_t b);

// `name` must be at least `min`.
Status check_at_least(std::string_view name, uint64_t value, uint64_t min);
// A `what` (e.g. "leaf") needing `ports` ports must fit in a switch.
Status check_switch_ports(std::string_view what, uint64_t ports);
// An explicit radix (non-zero) must be at least what the tree needs.
Status check_radix(uint32_t radix, uint64_t needed);
Status check_link(const LinkOptions& link);
// The fabric must stay below kMaxNodes.
Status check_size(const SizeEstimate& size);

}  // namespace ibsm::topogen
