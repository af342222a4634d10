// The filter of repeated traps on its own: what is a repeat, when one is
// ignored, and the sweep an ignored series owes when it ends.
#include <catch2/catch.hpp>

#include "sm/manager/trap_filter.h"

namespace ibsm {
namespace {

constexpr Micros kSecond = 1'000'000;

wire::Notice trap128(uint16_t issuer) {
  wire::Notice n;
  n.is_generic = true;
  n.type = wire::notice_type::urgent;
  n.producer_type = wire::producer_type::switch_;
  n.trap_number = wire::trap_number::link_state_change;
  n.issuer_lid = Lid{issuer};
  n.data_details[0] = static_cast<uint8_t>(issuer >> 8);
  n.data_details[1] = static_cast<uint8_t>(issuer);
  return n;
}

TEST_CASE("identical traps from one lid are one series: the first logged, the rest counted", "[manager][storm]") {
  TrapFilter f;
  const TrapVerdict first = f.note(Lid{3}, trap128(3), 0);
  CHECK(first.first());
  CHECK(first.act);
  for (int i = 1; i <= 10; ++i) {
    const TrapVerdict v = f.note(Lid{3}, trap128(3), i * 1000);
    CHECK_FALSE(v.first());
    CHECK(v.act);  // up to 10 before it: acted on, as OpenSM
    CHECK(v.milestone() == (i == 9));  // the 10th of the series says how many came
  }
  const TrapVerdict eleventh = f.note(Lid{3}, trap128(3), 11'000);
  CHECK_FALSE(eleventh.act);  // more than 10 before it: noise
  CHECK(f.counters().repeats == 11);
  CHECK(f.counters().ignored == 1);

  // Another switch, or another trap from the same one, is a series of its own.
  CHECK(f.note(Lid{4}, trap128(4), 12'000).first());
  wire::Notice other = trap128(3);
  other.trap_number = wire::trap_number::capability_mask_change;
  CHECK(f.note(Lid{3}, other, 13'000).first());
  wire::Notice details = trap128(3);
  details.data_details[5] = 1;
  CHECK(f.note(Lid{3}, details, 14'000).first());
  CHECK(f.series() == 4);
}

TEST_CASE("a series lives while its traps come within the window; an ignored one owes a sweep when it ends",
          "[manager][storm]") {
  TrapFilter f(TrapFilterOptions{.window = 10 * kSecond, .act_limit = 2});
  Micros t = 0;
  for (int i = 0; i < 5; ++i, t += 9 * kSecond) f.note(Lid{3}, trap128(3), t);  // each within 10 s of the last
  CHECK(f.counters().repeats == 4);
  CHECK(f.counters().ignored == 2);
  const Micros last = t - 9 * kSecond;
  REQUIRE(f.next_deadline());
  CHECK(*f.next_deadline() == last + 10 * kSecond);
  CHECK_FALSE(f.take_owed_sweep(last + 10 * kSecond - 1));
  CHECK(f.take_owed_sweep(last + 10 * kSecond));
  CHECK(f.counters().owed_sweeps == 1);
  CHECK(f.series() == 0);
  CHECK_FALSE(f.next_deadline());
  // After the window the same trap starts a new series, and acts.
  CHECK(f.note(Lid{3}, trap128(3), last + 11 * kSecond).first());
  // A series with nothing ignored owes nothing.
  CHECK_FALSE(f.take_owed_sweep(last + 30 * kSecond));
}

TEST_CASE("past max_series a new series is not tracked: its traps act", "[manager][storm]") {
  TrapFilter f(TrapFilterOptions{.window = kSecond, .act_limit = 0, .max_series = 1});
  CHECK(f.note(Lid{3}, trap128(3), 0).first());
  CHECK_FALSE(f.note(Lid{3}, trap128(3), 1).act);
  CHECK(f.note(Lid{4}, trap128(4), 2).act);
  CHECK(f.note(Lid{4}, trap128(4), 3).act);
  CHECK(f.series() == 1);
}

TEST_CASE("milestones: the 10th, 100th and 1000th of a series", "[manager][storm]") {
  auto at = [](uint64_t nth) { return TrapVerdict{nth - 1, true}.milestone(); };
  CHECK(at(10));
  CHECK(at(100));
  CHECK(at(1000));
  CHECK_FALSE(at(1));
  CHECK_FALSE(at(11));
  CHECK_FALSE(at(99));
}

}  // namespace
}  // namespace ibsm

namespace ibsm {
namespace {

TEST_CASE("a sweep that starts after the ignored traps pays what they owed", "[manager][storm]") {
  TrapFilter f(TrapFilterOptions{.window = 10 * kSecond, .act_limit = 0});
  f.note(Lid{3}, trap128(3), 0);
  f.note(Lid{3}, trap128(3), 1);  // ignored
  f.sweep_started();
  CHECK_FALSE(f.next_deadline());
  CHECK_FALSE(f.take_owed_sweep(20 * kSecond));
  f.note(Lid{3}, trap128(3), 21 * kSecond);
  f.note(Lid{3}, trap128(3), 22 * kSecond);  // ignored after the sweep: owed
  CHECK(f.take_owed_sweep(32 * kSecond));
}

}  // namespace
}  // namespace ibsm
