// The colour scale of the fabric picture: a link's routed load as a share of
// the most loaded link, in a few discrete steps (a reader can match a link
// to the legend, and a test can find the colours in a screenshot), and the
// colours of errors and of the picture's other marks.
#pragma once

#include <array>
#include <cstdint>

namespace ibsm::status {

// Step 0: no route at all; steps 1..5: up to 20%, 40%, 60%, 80%, 100% of the
// maximum.
inline constexpr std::array<const char*, 6> kLoadColours = {"#b0b0b0", "#9ecae1", "#4292c6",
                                                            "#08519c", "#f16913", "#7f2704"};
inline constexpr const char* kErrorColour = "#e41a1c";   // a cable with error counts at either end
inline constexpr const char* kSwitchFill = "#c7e9c0";    // switch boxes
inline constexpr const char* kEndpointFill = "#525252";  // CA marks

// The step of `routes` on a scale up to `max` (0 when routes is 0, else
// 1..5; a max of 0 with routes above it counts as the top step).
unsigned load_step(uint64_t routes, uint64_t max);
inline const char* load_colour(uint64_t routes, uint64_t max) { return kLoadColours[load_step(routes, max)]; }

}  // namespace ibsm::status
