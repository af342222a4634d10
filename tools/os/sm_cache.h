// The SM's cache files (the edge's half of SweepState persistence): the
// guid2lid map in OpenSM's format, so a restart gives every port its LID
// back, and what each switch's forwarding table holds, so a restart on a
// configured fabric rewrites no table.
#pragma once

#include <string>
#include <vector>

#include "mad/base/status.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

// Loads what exists in `dir` into `state`; a missing file is no error (a
// first start), a malformed one is reported in `warnings` and skipped.
Status load_sm_cache(const std::string& dir, SweepState& state, std::vector<std::string>& warnings);
// Writes the cache files atomically (write_file_atomically), creating `dir`.
Status save_sm_cache(const std::string& dir, const SweepState& state);

}  // namespace ibsm
