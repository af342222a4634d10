// When the master sweeps again after a heavy sweep that failed, or that left
// reachable ports short of their configuration: at once, then after 1, 2,
// 4 ... s, up to the light-sweep interval, so a port that never comes up
// costs one heavy sweep per interval, not one a second (a heavy sweep of
// the largest fabrics is 400k MADs). Between retries the fabric is probed
// every second, cheaply: one NodeInfo Get, a single attempt, to the local
// port and to a few of the paths that went silent. A path that was silent (in
// the sweep, or at a probe) and answers a probe means the fabric came back
// (ibsim's `Wait`, a switch that rebooted): the retry is then at once.
//
// Pure policy plus the probes' MADs, driven from SubnetManager::poll.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/types.h"
#include "mad/dispatcher.h"
#include "sm/sweep/sweep_problem.h"

namespace ibsm {

class SweepRetry {
 public:
  static constexpr Micros kProbeInterval = 1'000'000;
  static constexpr size_t kMaxProbes = 4;  // paths probed besides the local port

  // The subnet came up: no retry pending.
  void succeeded();
  // The sweep at `now` failed (`problems` of the report, empty when it could
  // not run at all); the backoff doubles from 1 s up to `cap` (at least 1 s).
  void failed(Micros now, const std::vector<SweepProblem>& problems, Micros cap);

  // A new event (a trap, SIGHUP, an operator's resweep): retry at once,
  // keeping the count of failures in a row.
  void bring_forward() {
    if (pending_) thawed_ = true;
  }
  bool pending() const { return pending_; }
  // A probe saw a silent path answer (not merely a new event).
  bool thawed() const { return by_probe_; }
  Micros retry_at() const { return retry_at_; }
  // Time for the heavy sweep: the backoff ran out, or a probe saw the fabric back.
  bool due(Micros now) const { return pending_ && (now >= retry_at_ || thawed_); }
  // When poll() next has something to do (a retry or a probe round).
  Micros next_deadline() const;
  // Whether a probe round is due: between the failure and the retry, once a second.
  bool probe_due(Micros now) const {
    return pending_ && !thawed_ && now >= next_probe_ && now < retry_at_ && probes_;
  }
  // Sends the probe round that is due; returns whether it submitted any MAD.
  // The probes carry `m_key` (the configured one: a port at M_Key
  // protection level 2 or 3 answers no Get without its key, IBA 14.2.4.1).
  bool poll(Micros now, MadDispatcher& dispatcher, uint64_t m_key = 0);

  uint32_t failures() const { return failures_; }  // in a row
  uint64_t thaws() const { return thaws_; }        // retries a probe brought forward

 private:
  struct Probe {
    DrPath path;
    bool silent_once = false;  // it went unanswered: in the sweep, or at a probe
    bool in_flight = false;
  };

  bool pending_ = false;
  bool thawed_ = false;    // the retry is due now
  bool by_probe_ = false;  // because a probe saw the fabric answer again
  uint32_t failures_ = 0;
  uint64_t thaws_ = 0;
  Micros retry_at_ = 0;
  Micros next_probe_ = 0;
  // Shared with the probes' completions, which may outlive a reset.
  std::shared_ptr<std::vector<Probe>> probes_;
};

}  // namespace ibsm
