#include "sm/sweep/routing_step.h"

#include "routing/chain.h"
#include "routing/registry.h"

namespace ibsm {

Result<RouteFunction> make_route_function(const std::string& chain_text, LogSink& log,
                                          const routing::EngineSettings& settings) {
  routing::EngineRegistry registry;
  IBSM_RETURN_IF_ERROR(routing::register_builtin_engines(registry, settings));
  auto chain = routing::parse_engine_chain(chain_text, registry);
  if (!chain.ok()) return chain.status();
  LogSink* sink = &log;
  return RouteFunction([chain_text, sink, settings](const Fabric& snapshot) -> Result<SweepRoutes> {
    auto outcome = routing::route_snapshot(snapshot, chain_text, *sink, settings);
    if (!outcome.ok()) return outcome.status();
    SweepRoutes r;
    r.lfts = std::move(outcome->tables.lfts);
    r.engine = outcome->engine;
    return r;
  });
}

}  // namespace ibsm
