// Time enters the core only through this interface, so SimFabric can drive
// virtual time and timeouts, retries and failover are deterministic in tests.
// The wall-clock implementation lives at the edge (tools/).
#pragma once

#include <cstdint>

namespace ibsm {

// Monotonic time in microseconds since an arbitrary origin.
using Micros = int64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Micros now() const = 0;
};

// A clock that moves only when told to: for SimFabric and unit tests.
class ManualClock final : public Clock {
 public:
  Micros now() const override { return now_; }
  void advance(Micros delta) { now_ += delta; }
  void set(Micros t) { now_ = t; }

 private:
  Micros now_ = 0;
};

}  // namespace ibsm
