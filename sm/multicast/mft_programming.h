// Programs the switches' MulticastForwardingTables (IBA 14.2.5.12) to hold a
// computed multicast forwarding state, sending only the blocks that differ
// from what each switch holds (remembered in SweepState, like the LFTs), and
// never letting a group's packets loop while its tree changes.
//
// A block is 32 MLIDs x 16 ports (one position); a switch with more than 15
// ports has NumPorts / 16 + 1 positions (a 36-port switch: 3). A switch the
// SM has no memory of has its blocks read first, up to MulticastFDBCap (or
// up to MulticastFDBTop where the switch supports it), so a takeover on an
// unchanged fabric sets no block.
//
// No loop while trees change: for one MLID let O_s be what switch s holds and
// N_s what it must hold, both the entries of a tree (or of nothing). The
// blocks are written in two phases with a barrier between them:
//  1. every block with an entry that loses ports is written as O_s AND N_s;
//  2. then every block that still differs is written as N_s.
// While phase 1 runs, each switch holds O_s or O_s AND N_s (per position,
// in any order the SMPs land): always a subset of O_s. After its barrier each
// switch holds O_s AND N_s (a switch that lost nothing had O_s within N_s,
// so O_s = O_s AND N_s), a subset of N_s; while phase 2 runs each switch holds
// that or N_s: a subset of N_s. A packet leaves a switch by the entry's ports
// except the one it came in on, so with every entry within one tree's
// entries it only ever moves along that tree's links, never back over the
// link it came by: a walk in a tree that never turns back visits no switch
// twice. Every intermediate state is within the old tree or within the new
// one, hence loop-free. If a phase-1 Set fails, the MLIDs of that block keep
// their phase-1 values in phase 2 everywhere (still within the old tree),
// and the switch is read again next time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/dispatcher.h"
#include "sm/fabric/multicast_tables.h"
#include "sm/fabric/subnet_snapshot.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

struct MftProgramming {
  uint64_t blocks_read = 0;          // of switches the SM had no memory of
  uint64_t blocks_sent = 0;          // both phases
  uint64_t removal_blocks_sent = 0;  // phase 1 (old AND new)
  uint64_t switch_info_sets = 0;     // MulticastFDBTop, where supported
  uint64_t switches_changed = 0;     // switches that got at least one block
  std::vector<std::string> problems;  // by switch GUID; the other switches are still programmed
};

struct MftProgramOptions {
  // Called after each barrier: "read", "remove", "add" (tests look at the switches).
  std::function<void(std::string_view phase)> at_barrier;
  // Called when a block Set is answered (the switch holds it now).
  std::function<void()> after_block;
  // Non-empty: only the blocks holding these MLIDs are compared and written
  // (an SA join or leave changed just them); empty: every block.
  std::vector<Lid> only_mlids;
};

// Makes every switch of `subnet` hold `want` (entries of switches beyond it,
// and of CAs, are ignored). Only a local port that does not answer at all
// makes it fail; problems with single switches are in the result.
Result<MftProgramming> program_mfts(MadDispatcher& dispatcher, SweepState& state, const SubnetSnapshot& subnet,
                                    const MulticastTables& want, LogSink& log, const MftProgramOptions& options = {});

}  // namespace ibsm
