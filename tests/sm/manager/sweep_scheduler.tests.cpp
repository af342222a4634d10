// Sweep scheduling alone (sweep_scheduler.h), in virtual time: which sweep
// is due when, and every step of the retry's backoff after a failed sweep
// (sweep_retry.h: at once, then 1, 2, 4 ... s up to the sweep interval).
#include "sm/manager/sweep_scheduler.h"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace ibsm {
// Named, not anonymous: in a unity batch the other suites' file-local names
// (kSecond, config(), ...) share one translation unit with these.
namespace scheduler_tests {

using Due = SweepScheduler::Due;
constexpr Micros kSecond = 1'000'000;
constexpr Micros kInterval = 10 * kSecond;  // sweep_interval

struct Lines final : LogSink {
  std::vector<std::string> lines;
  bool enabled(LogLevel, Subsystem) const override { return true; }
  void write(LogLevel, Subsystem, std::string_view m) override { lines.emplace_back(m); }
  bool has(std::string_view line) const { return std::find(lines.begin(), lines.end(), line) != lines.end(); }
};

const char* due_name(Due d) {
  switch (d) {
    case Due::none: return "none";
    case Due::heavy: return "heavy";
    case Due::probes: return "probes";
    case Due::incremental: return "incremental";
    case Due::multicast: return "multicast";
    case Due::light: return "light";
  }
  return "?";
}

struct Master {
  Lines log;
  SweepScheduler s{kInterval, log};
  std::string due(Micros now, bool incremental = false, bool multicast = false) const {
    return due_name(s.master_due(now, incremental, multicast));
  }
  // The first heavy sweep ran at `now` and brought the subnet up.
  void up(Micros now) {
    REQUIRE(due(now) == "heavy");
    s.heavy_started();
    s.configured(now, true);
  }
  // The heavy sweep due ran at `now` and failed (as master).
  void fail(Micros now) {
    REQUIRE(due(now) == "heavy");
    s.heavy_started();
    s.failed(now, {}, true);
  }
};

TEST_CASE("a new scheduler wants a heavy sweep at once", "[manager][sweep_scheduler]") {
  Master m;
  CHECK(m.s.heavy_due());
  CHECK(m.due(0) == "heavy");
  CHECK(m.s.discovering_due(0));
  CHECK(m.s.master_deadline(5 * kSecond, false) == 5 * kSecond);
  m.s.heavy_started();
  CHECK(m.due(0) == "light");  // no configured sweep yet: the light sweep's time is 0
}

TEST_CASE("after a configured sweep, a light sweep every sweep_interval", "[manager][sweep_scheduler]") {
  Master m;
  m.up(kSecond);
  CHECK(m.due(kSecond + kInterval - 1) == "none");
  CHECK(m.s.master_deadline(2 * kSecond, false) == kSecond + kInterval);
  CHECK(m.due(kSecond + kInterval) == "light");
  m.s.light_started();
  m.s.light_quiet(kSecond + kInterval);
  CHECK(m.due(kSecond + 2 * kInterval - 1) == "none");
  CHECK(m.due(kSecond + 2 * kInterval) == "light");
}

TEST_CASE("no periodic light sweeps with sweep_interval 0", "[manager][sweep_scheduler]") {
  Master m;
  m.s.set_interval(0);
  m.up(0);
  CHECK(m.due(1000 * kSecond) == "none");
  CHECK_FALSE(m.s.master_deadline(kSecond, false));
  m.s.want_light();  // the operator's still runs
  CHECK(m.due(kSecond) == "light");
}

TEST_CASE("a new sweep interval applies from the next sweep on", "[manager][sweep_scheduler]") {
  Master m;
  m.up(0);
  m.s.set_interval(3 * kSecond);
  CHECK(m.due(3 * kSecond) == "none");  // scheduled with the old interval
  CHECK(m.due(kInterval) == "light");
  m.s.light_started();
  m.s.light_quiet(kInterval);
  CHECK(m.due(kInterval + 3 * kSecond) == "light");
}

TEST_CASE("an operator's light sweep is due at once", "[manager][sweep_scheduler]") {
  Master m;
  m.up(0);
  m.s.want_light();
  CHECK(m.s.light_due());
  CHECK(m.due(kSecond) == "light");
  CHECK(m.s.master_deadline(kSecond, false) == kSecond);
  m.s.light_started();
  CHECK(m.due(kSecond) == "none");
}

TEST_CASE("a heavy sweep due goes first; then incremental, multicast, light", "[manager][sweep_scheduler]") {
  Master m;
  m.up(0);
  m.s.want_light();
  CHECK(m.due(kSecond, true, true) == "incremental");
  CHECK(m.due(kSecond, false, true) == "multicast");
  CHECK(m.due(kSecond, false, false) == "light");
  CHECK(m.s.master_deadline(kSecond, true) == kSecond);
  m.s.want_heavy();
  CHECK(m.due(kSecond, true, true) == "heavy");
}

TEST_CASE("trap-driven heavy sweeps coalesce: one sweep however many traps came", "[manager][sweep_scheduler]") {
  Master m;
  m.up(0);
  m.s.traps_arrived(0);
  CHECK(m.s.coalesced() == 0);
  m.s.traps_arrived(3);  // no sweep was due: the first asks for it, two join it
  CHECK(m.s.coalesced() == 2);
  m.s.want_heavy();
  m.s.traps_arrived(4);  // a sweep is due: all four join it
  CHECK(m.s.coalesced() == 6);
  CHECK(m.due(kSecond) == "heavy");
  m.s.heavy_started();
  CHECK(m.due(kSecond) == "none");  // one sweep
}

TEST_CASE("retry step 1: the first failed sweep is retried at once", "[manager][sweep_scheduler][retry]") {
  Master m;
  m.fail(5 * kSecond);
  CHECK(m.s.retry().failures() == 1);
  CHECK(m.s.retry().retry_at() == 5 * kSecond);
  CHECK(m.due(5 * kSecond) == "heavy");
  CHECK(m.s.master_deadline(5 * kSecond, false) == 5 * kSecond);
  CHECK(m.log.has("heavy sweep again at once (1 failed in a row; probing the fabric every second)"));
}

TEST_CASE("retry step 2: 1 s after the second failure in a row", "[manager][sweep_scheduler][retry]") {
  Master m;
  m.fail(0);
  m.fail(0);
  CHECK(m.s.retry().failures() == 2);
  CHECK(m.due(kSecond - 1) == "none");
  CHECK(m.s.master_deadline(0, false) == kSecond);
  CHECK(m.due(kSecond) == "heavy");
  CHECK(m.log.has("heavy sweep again in 1 s (2 failed in a row; probing the fabric every second)"));
}

TEST_CASE("retry step 3: 2 s after the third, the fabric probed at 1 s", "[manager][sweep_scheduler][retry]") {
  Master m;
  m.fail(0);
  m.fail(0);
  m.fail(kSecond);
  CHECK(m.s.retry().retry_at() == 3 * kSecond);
  CHECK(m.due(kSecond) == "none");
  CHECK(m.s.master_deadline(kSecond, false) == 2 * kSecond);  // the probe round
  CHECK(m.due(2 * kSecond) == "probes");
  CHECK(m.due(3 * kSecond - 1) == "probes");
  CHECK(m.due(3 * kSecond) == "heavy");
  CHECK(m.log.has("heavy sweep again in 2 s (3 failed in a row; probing the fabric every second)"));
}

TEST_CASE("retry step 4: 4 s after the fourth", "[manager][sweep_scheduler][retry]") {
  Master m;
  Micros t = 0;
  for (int i = 0; i < 3; ++i) {
    m.fail(t);
    t = m.s.retry().retry_at();
  }
  m.fail(t);
  CHECK(m.s.retry().failures() == 4);
  CHECK(m.s.retry().retry_at() == t + 4 * kSecond);
  CHECK(m.due(t + 4 * kSecond - 1) == "probes");
  CHECK(m.due(t + 4 * kSecond) == "heavy");
  CHECK(m.log.has("heavy sweep again in 4 s (4 failed in a row; probing the fabric every second)"));
}

TEST_CASE("retry steps 5 and on: 8 s, then the sweep interval at most", "[manager][sweep_scheduler][retry]") {
  Master m;
  Micros t = 0;
  std::vector<Micros> delays;
  for (int i = 0; i < 7; ++i) {
    m.fail(t);
    delays.push_back(m.s.retry().retry_at() - t);
    t = m.s.retry().retry_at();
  }
  CHECK(delays == std::vector<Micros>{0, kSecond, 2 * kSecond, 4 * kSecond, 8 * kSecond, kInterval, kInterval});
}

TEST_CASE("retry with sweep_interval 0: the backoff stops at 1 s", "[manager][sweep_scheduler][retry]") {
  Master m;
  m.s.set_interval(0);
  Micros t = 0;
  std::vector<Micros> delays;
  for (int i = 0; i < 4; ++i) {
    m.fail(t);
    delays.push_back(m.s.retry().retry_at() - t);
    t = m.s.retry().retry_at();
  }
  CHECK(delays == std::vector<Micros>{0, kSecond, kSecond, kSecond});
}

TEST_CASE("a new event brings a pending retry forward, keeping the count", "[manager][sweep_scheduler][retry]") {
  Master m;
  Micros t = 0;
  for (int i = 0; i < 4; ++i) {
    m.fail(t);
    if (i < 3) t = m.s.retry().retry_at();
  }
  REQUIRE(t == 3 * kSecond);
  REQUIRE(m.s.retry().retry_at() == 7 * kSecond);
  REQUIRE(m.due(t) == "none");
  m.s.want_heavy();  // a trap, SIGHUP, an operator's reroute
  CHECK(m.due(t) == "heavy");
  CHECK(m.s.master_deadline(t, false) == t);
  CHECK_FALSE(m.s.thawed());  // not a probe's doing
  m.s.heavy_started();
  m.s.failed(t, {}, true);
  CHECK(m.s.retry().failures() == 5);
  CHECK(m.s.retry().retry_at() == t + 8 * kSecond);
}

TEST_CASE("a sweep that brings the subnet up ends the retry", "[manager][sweep_scheduler][retry]") {
  Master m;
  m.fail(0);
  m.fail(0);
  m.up(kSecond);
  CHECK_FALSE(m.s.retry().pending());
  CHECK(m.s.retry().failures() == 0);
  CHECK(m.due(kSecond + kInterval) == "light");
  m.s.want_heavy();
  m.fail(2 * kSecond);  // failures count from one again: at once
  CHECK(m.s.retry().retry_at() == 2 * kSecond);
}

TEST_CASE("a sweep that leaves the subnet not up is retried as a failed one", "[manager][sweep_scheduler][retry]") {
  Master m;
  m.up(0);
  m.s.want_heavy();
  REQUIRE(m.due(0) == "heavy");
  m.s.heavy_started();
  SweepProblem p;
  p.kind = SweepProblemKind::silent;
  m.s.failed(kSecond, {p}, true);
  m.s.configured(kSecond, false);
  CHECK(m.s.retry().pending());
  CHECK(m.s.heavy_due());
  CHECK(m.due(kSecond) == "heavy");  // the first: at once
}

TEST_CASE("DISCOVERING: a failed sweep is tried again a second later", "[manager][sweep_scheduler]") {
  Master m;
  REQUIRE(m.s.discovering_due(0));
  m.s.heavy_started();
  m.s.failed(2 * kSecond, {}, false);
  CHECK(m.s.heavy_due());
  CHECK_FALSE(m.s.retry().pending());  // the master's backoff is not involved
  CHECK(m.s.discovering_deadline() == 3 * kSecond);
  CHECK_FALSE(m.s.discovering_due(3 * kSecond - 1));
  CHECK(m.s.discovering_due(3 * kSecond));
  CHECK(m.log.lines.empty());
}

TEST_CASE("DISCOVERING: a sweep that stopped after discovery looks again a second later",
          "[manager][sweep_scheduler]") {
  Master m;
  m.s.heavy_started();
  m.s.discovery_only(4 * kSecond);
  CHECK_FALSE(m.s.discovering_due(5 * kSecond - 1));
  CHECK(m.s.discovering_due(5 * kSecond));
  CHECK(m.s.discovering_deadline() == 5 * kSecond);
}

TEST_CASE("a takeover or a control packet cuts DISCOVERING's wait short", "[manager][sweep_scheduler]") {
  Master m;
  m.s.heavy_started();
  m.s.discovery_only(4 * kSecond);
  m.s.want_heavy();  // only the heavy sweep: the wait stays
  CHECK_FALSE(m.s.discovering_due(4 * kSecond));
  m.s.want_heavy_now();
  CHECK(m.s.discovering_due(4 * kSecond));
  CHECK(m.s.retry_at() == 0);
}

}  // namespace scheduler_tests
}  // namespace ibsm
