// The engine chain: `routing_engine = a,b[,no_fallback]` tries each engine in
// order and then min-hop, unless no_fallback is given. An engine that refuses
// (it cannot handle the topology) returns a Status saying why; the chain logs
// it, records it, and moves on. The engine actually used is recorded too.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/log.h"
#include "mad/base/status.h"
#include "routing/engine.h"
#include "routing/registry.h"

namespace ibsm::routing {

// The keyword that turns the min-hop fallback off.
inline constexpr std::string_view kNoFallback = "no_fallback";

struct EngineChain {
  std::vector<std::string> engines;  // tried in this order
  bool fallback = true;              // then minhop, when it was not tried already
  // As the config file spells it: "updn,ftree,no_fallback".
  std::string to_string() const;
};

// Parses a routing_engine value: names separated by commas (blanks around
// them ignored), each registered and listed once, plus optionally
// no_fallback. An empty value is min-hop alone.
Result<EngineChain> parse_engine_chain(std::string_view text, const EngineRegistry& registry);

struct EngineRefusal {
  std::string engine;
  Status reason;
};

struct RoutingOutcome {
  UnicastTables tables;
  std::string engine;                     // the engine whose tables these are
  std::unique_ptr<RoutingEngine> used;    // that engine, for its SL/VL/multicast hooks
  std::shared_ptr<const RoutingGraph> graph;  // what it routed (route_snapshot sets it), for those hooks
  std::vector<EngineRefusal> refusals;    // the engines tried before it, and why they refused
};

// Tries the chain's engines in order on `input`. An engine's tables are
// checked (validate_tables) before they are taken; bad tables count as a
// refusal. Fails, listing every reason, when no engine produced tables.
Result<RoutingOutcome> run_engine_chain(const EngineRegistry& registry, const EngineChain& chain,
                                        const RoutingInput& input);

// The whole routing step for one snapshot: the built-in engines configured
// by `settings`, the shared graph built once, the chain parsed from `chain_text`.
Result<RoutingOutcome> route_snapshot(const Fabric& snapshot, std::string_view chain_text, LogSink& log,
                                      const EngineSettings& settings = {});

}  // namespace ibsm::routing
