#include "sm/sweep/routing_step.h"

#include "routing/chain.h"
#include "routing/registry.h"
#include "routing/route_check.h"

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
    r.engine_used = std::move(outcome->used);
    if (r.engine_used && r.engine_used->assigns_sls()) {
      r.path_sl = [engine = r.engine_used, graph = outcome->graph](Lid source, Lid destination) {
        return engine->path_sl(routing::RoutingInput{*graph}, source, destination);
      };
    }
    if (r.engine_used) {
      const routing::RoutingInput input{*outcome->graph, *sink};
      r.sl2vl = r.engine_used->sl2vl(input);
      r.vl_arbitration = r.engine_used->vl_arbitration(input);
    }
    // Judge the tables before they are programmed, with the words `ibsm
    // check` prints. A failed check is logged, not fatal: the tables are the
    // best the chain could do, and routing part of a fabric beats none.
    routing::RouteCheck check =
        routing::check_routes(snapshot, r.lfts, {.pairs = {.max_problems = 3}, .engine = r.engine});
    r.check = check.to_string();
    r.check_ok = check.ok();
    r.port_routes = std::move(check.pairs.port_routes);
    ibsm::log(*sink, check.ok() ? LogLevel::info : LogLevel::warn, Subsystem::routing, "{}", r.check);
    for (const std::string& problem : check.pairs.problems) {
      ibsm::log(*sink, LogLevel::warn, Subsystem::routing, "routing check: {}", problem);
    }
    r.route_check = std::move(check);
    return r;
  });
}

}  // namespace ibsm
