#include "sm/manager/sweep_scheduler.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace ibsm {

void SweepScheduler::failed(Micros now, const std::vector<SweepProblem>& problems, bool master) {
  heavy_due_ = true;
  if (!master) {
    retry_at_ = now + kDiscoveringRetry;  // DISCOVERING: the local port is not up yet
    return;
  }
  retry_.failed(now, problems, interval_);
  retry_at_ = 0;
  log(log_, LogLevel::info, Subsystem::sweep, "heavy sweep again {} ({} failed in a row; probing the fabric every second)",
      retry_.retry_at() <= now ? std::string("at once") : fmt::format("in {:.0f} s", (retry_.retry_at() - now) / 1e6),
      retry_.failures());
}

SweepScheduler::Due SweepScheduler::master_due(Micros now, bool incremental_queued, bool multicast_queued) const {
  if (heavy_due_) {
    if (now >= retry_at_ && (!retry_.pending() || retry_.due(now))) return Due::heavy;
    return retry_.probe_due(now) ? Due::probes : Due::none;
  }
  if (incremental_queued) return Due::incremental;
  if (multicast_queued) return Due::multicast;
  if (light_due_ || (interval_ > 0 && now >= next_light_)) return Due::light;
  return Due::none;
}

std::optional<Micros> SweepScheduler::master_deadline(Micros now, bool work_queued) const {
  if (heavy_due_) return std::max({retry_at_, retry_.pending() ? retry_.next_deadline() : 0, now});
  if (work_queued || light_due_) return now;
  if (interval_ > 0) return next_light_;
  return std::nullopt;
}

}  // namespace ibsm
