// One sweep of any kind as the operator sees it: when, how long, how many
// MADs, what it found. The manager keeps the last few (status, status page).
#pragma once

#include <cstdint>

#include "mad/base/clock.h"

namespace ibsm {

struct SweepRecord {
  const char* kind = "none";  // "heavy", "light", "discovery" (stopped after the election) or "incremental"
  Micros started = 0;
  Micros duration = 0;
  uint64_t mads = 0;
  bool changed = false;    // light: it found a change (a heavy sweep follows)
  bool subnet_up = false;  // heavy: it brought the subnet up; light: the subnet it looked at was up
};

}  // namespace ibsm
