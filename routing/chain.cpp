#include "routing/chain.h"

#include <utility>

#include <fmt/format.h>

#include "mad/base/text.h"

#include "routing/minhop.h"

namespace ibsm::routing {

namespace {

}  // namespace

std::string EngineChain::to_string() const {
  std::string out;
  for (const std::string& e : engines) {
    if (!out.empty()) out += ',';
    out += e;
  }
  if (!fallback) {
    if (!out.empty()) out += ',';
    out += kNoFallback;
  }
  return out;
}

Result<EngineChain> parse_engine_chain(std::string_view text, const EngineRegistry& registry) {
  EngineChain chain;
  if (trim(text).empty()) return chain;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (item.empty()) return invalid_argument_error(fmt::format("empty engine name in routing_engine {}", quoted(text)));
    if (item == kNoFallback) {
      chain.fallback = false;
    } else if (!registry.contains(item)) {
      return invalid_argument_error(fmt::format("unknown routing engine {} (known: {})", quoted(item),
                                                fmt::join(registry.names(), ", ")));
    } else {
      for (const std::string& e : chain.engines) {
        if (e == item) return invalid_argument_error(fmt::format("routing engine {} is listed twice", quoted(item)));
      }
      chain.engines.emplace_back(item);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (chain.engines.empty()) return invalid_argument_error("routing_engine lists no_fallback but no engine");
  return chain;
}

Result<RoutingOutcome> run_engine_chain(const EngineRegistry& registry, const EngineChain& chain,
                                        const RoutingInput& input) {
  std::vector<std::string> order = chain.engines;
  if (chain.fallback) {
    bool tried = false;
    for (const std::string& e : order) tried = tried || e == kMinHopName;
    if (!tried) order.emplace_back(kMinHopName);
  }

  RoutingOutcome outcome;
  for (const std::string& name : order) {
    std::unique_ptr<RoutingEngine> engine = registry.create(name);
    if (!engine) {
      outcome.refusals.push_back({name, not_found_error(fmt::format("routing engine '{}' is not registered", name))});
      continue;
    }
    Result<UnicastTables> tables = engine->compute(input);
    Status problem = tables.ok() ? validate_tables(input.graph, *tables) : tables.status();
    if (!problem.ok()) {
      log(input.log, LogLevel::warn, Subsystem::routing, "routing engine {} refused: {}", name, problem.message());
      outcome.refusals.push_back({name, std::move(problem)});
      continue;
    }
    outcome.tables = std::move(tables).value();
    outcome.engine = name;
    outcome.used = std::move(engine);
    log(input.log, LogLevel::info, Subsystem::routing, "routing engine {} computed the tables ({} switches, lids 1-{})",
        name, input.graph.switch_count(), outcome.tables.linear_fdb_top);
    return outcome;
  }

  std::string reasons;
  for (const EngineRefusal& r : outcome.refusals) {
    reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", r.engine, r.reason.message());
  }
  log(input.log, LogLevel::error, Subsystem::routing, "no routing engine computed tables: {}", reasons);
  return failed_precondition_error(fmt::format("no routing engine of '{}' computed tables: {}", chain.to_string(),
                                               reasons.empty() ? "the chain is empty" : reasons));
}

Result<RoutingOutcome> route_snapshot(const Fabric& snapshot, std::string_view chain_text, LogSink& log,
                                      const EngineSettings& settings) {
  EngineRegistry registry;
  IBSM_RETURN_IF_ERROR(register_builtin_engines(registry, settings));
  Result<EngineChain> chain = parse_engine_chain(chain_text, registry);
  if (!chain.ok()) return chain.status();
  Result<RoutingGraph> graph = RoutingGraph::build(snapshot);
  if (!graph.ok()) return graph.status();
  auto shared = std::make_shared<const RoutingGraph>(std::move(*graph));
  Result<RoutingOutcome> outcome = run_engine_chain(
      registry, *chain, RoutingInput{.graph = *shared, .log = log, .max_vls = settings.max_vls, .aside = settings.aside});
  if (outcome.ok()) outcome->graph = std::move(shared);
  return outcome;
}

}  // namespace ibsm::routing
