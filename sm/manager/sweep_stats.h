// What the manager keeps of its sweeps for the metrics: per kind, their
// durations and the MADs each sent. Counts of sweeps stay in ManagerCounters;
// a histogram's count equals its kind's counter.
#pragma once

#include <array>
#include <cstdint>

#include "mad/base/clock.h"
#include "mad/base/histogram.h"

namespace ibsm {

// heavy: configured the subnet; light: checked it (IBA 14.4.9's "light
// sweep", as OpenSM says); discovery: stopped after discovery and the
// election, because another SM is master; incremental: configured the
// subnet after reading only the region that changed (incremental_sweep.h).
enum class SweepKind : uint8_t { heavy = 0, light = 1, discovery = 2, incremental = 3 };
inline constexpr std::array<SweepKind, 4> kSweepKinds{SweepKind::heavy, SweepKind::light, SweepKind::discovery,
                                                      SweepKind::incremental};
const char* sweep_kind_name(SweepKind kind);  // "heavy", "light", "discovery", "incremental"

struct SweepKindStats {
  metrics::Histogram duration{metrics::sweep_duration_buckets()};  // seconds
  uint64_t mads_total = 0;
  uint64_t last_mads = 0;
  Micros last_duration = 0;

  void record(Micros elapsed, uint64_t mads) {
    duration.observe(static_cast<double>(elapsed) / 1e6);
    mads_total += mads;
    last_mads = mads;
    last_duration = elapsed;
  }
};

}  // namespace ibsm
