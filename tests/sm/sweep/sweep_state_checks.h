// Checks on SweepState shared by the tests that compare two of them: a
// cache saved and loaded back, the state a listener heard and the one the
// sweep ends with.
#pragma once

#include <catch2/catch.hpp>

#include "sm/sweep/sweep_state.h"

namespace ibsm::testing {

// Both hold the same switches, with the same LIDs, tops and tables.
inline void check_same_tables(const SweepState& a, const SweepState& b) {
  REQUIRE(a.switches.size() == b.switches.size());
  for (const auto& [guid, m] : a.switches) {
    const SwitchMemory& other = b.switches.at(guid);
    CHECK(other.lid == m.lid);
    CHECK(other.linear_fdb_top == m.linear_fdb_top);
    CHECK(other.lft == m.lft);
  }
}

}  // namespace ibsm::testing
