// The sweep's routing step: the routing engine chain (routing/) wrapped as the
// RouteFunction a heavy sweep calls once per snapshot.
#pragma once

#include <string>

#include "mad/base/log.h"
#include "sm/sweep/heavy_sweep.h"

namespace ibsm {

// Checks `chain_text` ("minhop", "updn,minhop", "ftree,no_fallback") now, so a
// bad engine name fails at start rather than at the first sweep.
Result<RouteFunction> make_route_function(const std::string& chain_text, LogSink& log);

}  // namespace ibsm
