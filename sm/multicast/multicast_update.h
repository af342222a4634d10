// The one call the SubnetManager makes for multicast: recompute the trees of
// some groups and program the switches to match, sending only what differs
// and never leaving a moment of loop (mft_programming.h).
//
// After a heavy sweep (the topology or the LIDs may have changed): a new
//   MulticastForwarding::create(report.subnet, report.routes.engine_used)
// and update_multicast() with every group; entries of trees that moved or of
// groups that are gone are taken out on the way.
// After an SA join or leave: update_multicast() on the same forwarding state
// with just the changed groups (a group with no members is deleted).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/dispatcher.h"
#include "routing/multicast_check.h"
#include "sm/multicast/mft_programming.h"
#include "sm/multicast/multicast_forwarding.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

struct MulticastUpdate {
  size_t groups = 0;        // groups recomputed
  std::string tree_error;   // the first group whose tree failed (it kept its old one); empty: none
  MftProgramming programming;
  // The computed tables judged for the changed groups (a few members of
  // each flooded, routing/multicast_check.h), also logged.
  routing::MulticastCheck check;
};

// `full`: compare every block (after a heavy sweep); otherwise only the
// blocks of the changed MLIDs.
Result<MulticastUpdate> update_multicast(MadDispatcher& dispatcher, SweepState& state, MulticastForwarding& forwarding,
                                         std::span<const MulticastGroupMembers> changed, bool full, LogSink& log,
                                         MftProgramOptions options = {});

}  // namespace ibsm
