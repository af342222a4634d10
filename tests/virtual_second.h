// A second of virtual time, for the test benches that drive managers over
// SimFabric (their clocks count microseconds).
#pragma once

#include "mad/base/clock.h"

namespace ibsm::test {

inline constexpr Micros kSecond = 1'000'000;

}  // namespace ibsm::test
