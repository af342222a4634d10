// The sweep's routing step: the routing engine chain (routing/) wrapped as the
// RouteFunction a heavy sweep calls once per snapshot, and the route checker
// (routing/route_check.h) run on the tables it returns, logged in one line.
#pragma once

#include <string>

#include "mad/base/log.h"
#include "routing/registry.h"
#include "sm/sweep/heavy_sweep.h"

namespace ibsm {

// Checks `chain_text` ("minhop", "updn,minhop", "ftree,no_fallback") now, so a
// bad engine name fails at start rather than at the first sweep. `settings`
// carries what the engines read from files (updn's roots, the file engine's
// tables), loaded by the caller. After every routing the tables are checked
// and the verdict logged on the routing subsystem: at info level when every
// pair is delivered and no engine promising deadlock freedom left a channel
// dependency cycle, at warn level (with the first failed pairs) otherwise.
Result<RouteFunction> make_route_function(const std::string& chain_text, LogSink& log,
                                          const routing::EngineSettings& settings = {});

}  // namespace ibsm
