// The light sweep: the daemon's periodic "did anything change?" check, far
// cheaper than a heavy sweep. One SwitchInfo Get per switch tells whether any
// of its ports changed state since the SM last cleared PortStateChange (IBA
// 14.2.5.4); one PortInfo Get per LID-owning port (a switch's port 0, every
// cabled CA port) finds a LID changed behind the SM's back and the state of
// CA ports no switch watches (back to back). A node that no longer answers is
// a change too. It sends no Set: when something changed, the caller runs a
// heavy sweep, which clears PortStateChange again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm {

struct LightSweepResult {
  bool changed = false;
  std::string reason;  // the first change found, for the log
  uint64_t mads = 0;
  // What an incremental resweep (sm/sweep/incremental_sweep.h) starts from:
  // the switches (of `last`) whose ports changed state, including the
  // switch at the far end of a CA port that changed or went silent.
  // needs_full: a change that only a heavy sweep handles (a LID moved, an
  // SM started or stopped, a switch silent, a CA with no switch to watch it).
  std::vector<NodeIndex> changed_switches;
  bool needs_full = false;
};

// Checks the fabric as the previous heavy sweep left it (`last`).
LightSweepResult light_sweep(MadDispatcher& dispatcher, const SubnetSnapshot& last, LogSink& log = null_log_sink());

}  // namespace ibsm
