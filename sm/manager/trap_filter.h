// Repeated traps. A port repeats a trap until the SM represses it (IBA
// 13.4.9), and a flapping link makes a switch send the same trap 128 again
// and again (it carries only the switch's LID, IBA 14.2.5.1), so a storm is
// mostly identical traps. Identical means the same source LID and the same
// notice (type, producer, trap number, issuer LID, details).
//
// The rule is OpenSM's trap aging, where the meaning is the same: a series
// of identical traps lives while each comes within `window` of the one
// before (the window restarts at every repeat); a trap with more than
// `act_limit` identical ones before it in its series is ignored as noise (no
// sweep, no report to subscribers), the others are acted on. Beyond OpenSM, only the first of a series is logged (the
// rest are counted, and a line at the 10th, 100th, ... says how many came),
// and a series that had traps ignored after the last heavy sweep started
// owes one sweep when it ends, so the state the last ignored trap announced
// is not left to the next light sweep.
//
// Every trap is still answered with a TrapRepress (the agent does that first).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "mad/base/clock.h"
#include "mad/base/types.h"
#include "mad/wire/notice.h"

namespace ibsm {

struct TrapFilterOptions {
  Micros window = 10'000'000;  // OpenSM's trap aging timeout (10 s)
  uint32_t act_limit = 10;     // OpenSM's: more than 10 identical traps before it, and it is ignored
  size_t max_series = 4096;    // distinct series tracked at once; past that, new ones are not filtered
};

struct TrapVerdict {
  uint64_t earlier = 0;  // identical traps before this one in its series (0: the first)
  bool act = true;       // sweep and report it; false: ignored as noise
  bool first() const { return earlier == 0; }
  // Whether this repeat deserves a line of its own: the 10th, 100th, 1000th...
  bool milestone() const;
};

struct TrapFilterCounters {
  uint64_t repeats = 0;       // traps identical to one just before (not logged)
  uint64_t ignored = 0;       // of those, beyond act_limit: no sweep, no report
  uint64_t owed_sweeps = 0;   // series that ended with traps ignored, each owing one sweep
};

class TrapFilter {
 public:
  explicit TrapFilter(TrapFilterOptions options = {}) : options_(options) {}

  TrapVerdict note(Lid source, const wire::Notice& notice, Micros now);
  // A heavy sweep starts: it sees what every trap so far announced, so only
  // traps ignored from now on owe a sweep.
  void sweep_started();
  // Ends the series whose window has passed; true when one of them had
  // traps ignored since the last sweep started (a sweep is owed).
  bool take_owed_sweep(Micros now);
  // When the next series that owes a sweep ends.
  std::optional<Micros> next_deadline() const;

  const TrapFilterCounters& counters() const { return counters_; }
  size_t series() const { return series_.size(); }

 private:
  using Key = std::pair<uint16_t, std::array<uint8_t, wire::notice_size_without_gid>>;
  struct Series {
    Micros last = 0;
    uint64_t count = 0;
    bool ignored = false;
  };
  TrapFilterOptions options_;
  std::map<Key, Series> series_;
  TrapFilterCounters counters_;
};

}  // namespace ibsm
