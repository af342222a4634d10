// The IBA encodings of a multicast group's MTU and rate (the MTU and Rate
// fields of MCMemberRecord and PathRecord, IBA 15.2.5.15-16), read from the
// text of a config value. OpenSM's partitions.conf takes the raw codes
// ("mtu=4", "rate=3"); operators also think in bytes and Gb/s, so the names
// are accepted too.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ibsm {

// "4" (the code) or "2048" (the size in bytes) -> 4. Codes 1-5 are
// 256, 512, 1024, 2048, 4096 bytes. nullopt for anything else.
std::optional<uint8_t> parse_mtu_code(std::string_view text);
// What parse_mtu_code accepts, for error messages.
inline constexpr std::string_view mtu_values_help =
    "an mtu code 1-5 or a size 256, 512, 1024, 2048 or 4096";

// One IBA rate (IBA 15.2.5.16 Rate, with the codes the later annexes added).
struct IbRate {
  uint8_t code;
  uint32_t mbps;
};
// Every rate code 2-24, ascending by speed: the one table of them (the SA's
// path rates and the config readers both use it).
std::span<const IbRate> ib_rates();
// The code's speed; 0 for a code that is no rate.
uint32_t rate_mbps(uint8_t code);

// "7" (the code) or "40G" / "40g" / "40Gb/s" (the name) -> 7. The codes are
// libibmad's IB_PATH_RECORD_RATE_* (iba_types.h): 2 = 2.5 Gb/s up to
// 24 = 1200 Gb/s; 0 and 1 are not rates. A plain number is always a code, so
// "rate=10" is 120 Gb/s (code 10), not 10 Gb/s (that is "10G" or code 3).
std::optional<uint8_t> parse_rate_code(std::string_view text);
inline constexpr std::string_view rate_values_help =
    "a rate code 2-24 or a name like 40G (2.5G 5G 10G 14G 20G 25G 28G 30G 40G 50G 56G 60G 80G "
    "100G 112G 120G 168G 200G 300G 400G 600G 800G 1200G)";

}  // namespace ibsm
