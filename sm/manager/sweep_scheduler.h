// Sweep scheduling: which sweep the SubnetManager runs next, and when.
// MASTER: a heavy sweep when one is due (at start, on a trap, a change a
// light sweep saw, SIGHUP, an operator's reroute), after a failed one on the
// retry's backoff (sweep_retry.h: at once, then 1, 2, 4 ... s up to the sweep
// interval, the fabric probed every second meanwhile); otherwise an
// incremental sweep or multicast changes when queued; otherwise a light
// sweep every sweep_interval (0: none) or when the operator asks.
// DISCOVERING: a sweep that failed, or that could not settle the election,
// is tried again a second later.
//
// Events in, decisions out, in the manager's time; only the retry's probes
// send MADs, through the dispatcher the manager gives.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "sm/manager/sweep_retry.h"
#include "sm/sweep/sweep_problem.h"

namespace ibsm {

class SweepScheduler {
 public:
  static constexpr Micros kDiscoveringRetry = 1'000'000;

  // What the master's poll does now.
  enum class Due : uint8_t { none, heavy, probes, incremental, multicast, light };

  // `interval`: sweep_interval (0: no periodic light sweeps).
  SweepScheduler(Micros interval, LogSink& log) : interval_(interval), log_(log) {}
  void set_interval(Micros interval) { interval_ = interval; }
  Micros interval() const { return interval_; }

  // A new event asks for a heavy sweep: at the next poll, a pending retry's
  // backoff cut short.
  void want_heavy() {
    heavy_due_ = true;
    retry_.bring_forward();
  }
  // ... and DISCOVERING's wait before a retry cut short too.
  void want_heavy_now() {
    want_heavy();
    retry_at_ = 0;
  }
  // The operator's light sweep (MASTER), at the next poll.
  void want_light() { light_due_ = true; }
  // `n` traps asked for a heavy sweep since the last poll: each beyond the
  // first, and the first too when a sweep is already due, joins the sweep due.
  void traps_arrived(uint64_t n) {
    if (n > 0) coalesced_ += n - 1 + (heavy_due_ ? 1 : 0);
  }

  void heavy_started() { heavy_due_ = false; }
  void light_started() { light_due_ = false; }
  // A light sweep saw no change: the next one an interval from now.
  void light_quiet(Micros now) { next_light_ = now + interval_; }
  // A heavy sweep could not run at all, or left the subnet not up
  // (`problems`); `master`: this SM was master at its end.
  void failed(Micros now, const std::vector<SweepProblem>& problems, bool master);
  // A sweep stopped after discovery and this SM is still DISCOVERING.
  void discovery_only(Micros now) { retry_at_ = now + kDiscoveringRetry; }
  // A sweep configured the subnet (a retry is scheduled by failed() when it
  // is not up): the next light sweep an interval from now.
  void configured(Micros now, bool up) {
    if (up) retry_.succeeded();
    next_light_ = now + interval_;
  }

  // MASTER: what is due at `now`, given what is queued besides.
  Due master_due(Micros now, bool incremental_queued, bool multicast_queued) const;
  // MASTER: when master_due() next has something (nullopt: never by itself).
  std::optional<Micros> master_deadline(Micros now, bool work_queued) const;
  // DISCOVERING: whether to sweep at `now`, and when.
  bool discovering_due(Micros now) const { return now >= retry_at_; }
  Micros discovering_deadline() const { return retry_at_; }

  // The retry's probe round (Due::probes); whether it submitted any MAD.
  bool send_probes(Micros now, MadDispatcher& dispatcher, uint64_t m_key) {
    return retry_.poll(now, dispatcher, m_key);
  }
  // The heavy sweep due is a retry that a probe brought forward.
  bool thawed() const { return retry_.pending() && retry_.thawed(); }

  bool heavy_due() const { return heavy_due_; }
  bool light_due() const { return light_due_; }
  Micros next_light() const { return next_light_; }
  Micros retry_at() const { return retry_at_; }
  const SweepRetry& retry() const { return retry_; }
  uint64_t coalesced() const { return coalesced_; }

 private:
  Micros interval_;
  LogSink& log_;
  bool heavy_due_ = true;   // DISCOVERING/MASTER: sweep at the next poll
  bool light_due_ = false;  // MASTER: an operator's light sweep at the next poll
  Micros next_light_ = 0;
  Micros retry_at_ = 0;     // DISCOVERING: a sweep that failed is retried from here
  SweepRetry retry_;        // MASTER: when a sweep that failed runs again
  uint64_t coalesced_ = 0;  // trap requests merged into a sweep already due
};

}  // namespace ibsm
