// GIDs as text, the IPv6 form (RFC 4291 2.2) that saquery, the SA records'
// printer and OpenSM's partitions.conf use: "fe80::2:c903:0:1".
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/base/status.h"

namespace ibsm::wire {

// Eight groups of four hex digits, none left out.
std::string format_gid(std::span<const uint8_t, 16> gid);
// Up to eight hex groups, one "::" for a run of zero groups; no dotted IPv4 tail.
Result<std::array<uint8_t, 16>> parse_gid(std::string_view text);

}  // namespace ibsm::wire
