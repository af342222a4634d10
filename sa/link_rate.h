// The IBA rate codes of PathRecord/MultiPathRecord/MCMemberRecord Rate
// (IBA 15.2.5.16, extended by the 1.2.1-1.5 annexes for FDR..NDR and the 2x
// width) and how a port's active width and speed map onto them.
//
// The codes are not ordered by speed (3 = 10 Gb/s but 5 = 5 Gb/s), so every
// comparison goes through rate_mbps().
#pragma once

#include <cstdint>

#include "mad/wire/port_info.h"

namespace ibsm::sa {

// Megabits per second of rate code `code` (nominal: 4x FDR is 56000), 0 for
// a code that names no rate.
uint32_t rate_mbps(uint8_t code);
// The code for exactly `mbps`, or the fastest code slower than it; 0 below 2.5 Gb/s.
uint8_t rate_code_at_most(uint32_t mbps);
// The fastest valid code strictly slower than `code`, 0 for none.
uint8_t rate_code_below(uint8_t code);

// Lanes x lane speed of an active link (PortInfo codes, IBA 14.2.5.6): width
// 1=1x 2=4x 4=8x 8=12x 16=2x; speed 1=SDR 2=DDR 4=QDR; extended speed (used
// when non-zero) 1=FDR 2=EDR 4=HDR 8=NDR. 0 when a code is unknown.
uint32_t link_mbps(uint8_t width, uint8_t speed, uint8_t speed_ext);
// The rate code of a port's active width and speed; the extended speed counts
// when the port says it supports extended speeds (CapabilityMask bit 14).
uint8_t port_rate_code(const wire::PortInfo& info);

}  // namespace ibsm::sa
