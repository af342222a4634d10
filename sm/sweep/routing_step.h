// The sweep's routing step: the routing engine chain (routing/) wrapped as the
// RouteFunction a heavy sweep calls once per snapshot, and the route checker
// (routing/route_check.h) run on the tables it returns, logged in one line.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "mad/base/log.h"
#include "routing/registry.h"
#include "mad/base/aside_runner.h"
#include "sm/sweep/heavy_sweep.h"

namespace ibsm {

// Checks `chain_text` ("minhop", "updn,minhop", "ftree,no_fallback") now, so a
// bad engine name fails at start rather than at the first sweep. `settings`
// carries what the engines read from files (updn's roots, the file engine's
// tables), loaded by the caller. After every routing the tables are checked
// and the verdict logged on the routing subsystem: at info level when every
// pair is delivered and no engine promising deadlock freedom left a channel
// dependency cycle, at warn level (with the first failed pairs) otherwise.
// The channel dependencies are checked on the VLs of the engine's SLs
// (routing::engine_vls). Tables with a cycle are still programmed, but never
// in silence: an error line, and SweepRoutes::credit_loops counts them.
//
// With an `aside` runner the check of a fresh routing is handed to it and
// left pending in the routes (SweepRoutes::pending_check): the heavy sweep
// programs, arms and activates the ports meanwhile, and settles it before it
// changes the fabric it routed (the port states the ports answered go in
// after it).
Result<RouteFunction> make_route_function(const std::string& chain_text, LogSink& log,
                                          const routing::EngineSettings& settings = {}, AsideRunner aside = {});

// The routes of `now` mended by the engine that made `last` from `last`
// (RoutingEngine::repair), whose tables are already by `now`'s node
// indices and were made for `before`. Only the walks through the entries
// and cables that changed are checked (routing/repair_check.h), when the
// last check found every pair delivered and the end ports are as before;
// else every pair. The channel dependencies wait for the next full routing,
// which the log line says. nullopt when the engine cannot mend
// this change: route afresh. `now` may be padded (with_same_switches):
// then the tables come back for `checked`, the real fabric whose nodes come
// first in `now`, and are checked on it.
std::optional<SweepRoutes> repair_routes(const Fabric& before, SweepRoutes last, const Fabric& now, LogSink& log,
                                         const Fabric* checked = nullptr);

// A switch lost or one that came: a repair needs the same switches on both
// sides, so each fabric gets the other's extra switches appended uncabled,
// with their own LIDs (leading nowhere). The fabrics' own nodes keep their
// indices. nullopt when no switch came or went, or when an end port did
// (other destinations: route afresh), which on the k=34 fat tree was the
// slowest of bench/reroute.sh's events, an aggregation switch lost.
struct SameSwitches {
  Fabric before;
  Fabric now;
};
std::optional<SameSwitches> with_same_switches(const Fabric& before, const Fabric& now);

// The SA's per-path SL lookup for `engine` after it routed `snapshot`: empty
// when the engine assigns no SLs. It owns what it reads (the engine, a copy of
// the snapshot and a routing graph over the copy): the heavy sweep's fabric
// the engine routed is moved away when the sweep ends, and the SA asks long
// after.
std::function<uint8_t(Lid, Lid)> owned_path_sl(std::shared_ptr<const routing::RoutingEngine> engine,
                                               const Fabric& snapshot);

}  // namespace ibsm
