// The wall clock for the edge: the core only ever sees the Clock interface.
#pragma once

#include <chrono>

#include "mad/base/clock.h"

namespace ibsm {

class SteadyClock final : public Clock {
 public:
  Micros now() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace ibsm
