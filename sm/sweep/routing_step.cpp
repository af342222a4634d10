#include "sm/sweep/routing_step.h"

#include <memory>

#include "routing/chain.h"
#include "routing/graph.h"
#include "routing/registry.h"
#include "routing/route_check.h"

namespace ibsm {

std::function<uint8_t(Lid, Lid)> owned_path_sl(std::shared_ptr<const routing::RoutingEngine> engine,
                                               const Fabric& snapshot) {
  if (!engine || !engine->assigns_sls()) return {};
  auto fabric = std::make_shared<const Fabric>(snapshot);
  Result<routing::RoutingGraph> built = routing::RoutingGraph::build(*fabric);
  if (!built.ok()) return {};  // the engine routed this very fabric: it builds
  auto graph = std::make_shared<const routing::RoutingGraph>(std::move(*built));
  return [engine = std::move(engine), fabric = std::move(fabric), graph = std::move(graph)](Lid source,
                                                                                           Lid destination) {
    return engine->path_sl(routing::RoutingInput{.graph = *graph}, source, destination);
  };
}

namespace {

// The checker's verdict into `r` and the log, in the words `ibsm check`
// prints: info when it is ok, warn (with the first failed pairs) otherwise.
void record_check(SweepRoutes& r, routing::RouteCheck check, LogSink& log) {
  r.check = check.to_string();
  r.check_ok = check.ok();
  ibsm::log(log, check.ok() ? LogLevel::info : LogLevel::warn, Subsystem::routing, "{}", r.check);
  for (const std::string& problem : check.repair ? check.repair->problems : check.pairs.problems) {
    ibsm::log(log, LogLevel::warn, Subsystem::routing, "routing check: {}", problem);
  }
  r.route_check = std::move(check);
}

// A credit loop is never installed in silence: these are still the tables
// programmed (no engine of the chain did better, and a fabric that can
// deadlock under load beats one without routes), but the error says so.
void log_credit_loop(const SweepRoutes& r, LogSink& log) {
  ibsm::log(log, LogLevel::error, Subsystem::routing,
            "routing engine {} leaves a credit loop in the tables installed (a channel dependency cycle on {}); "
            "the fabric can deadlock under load: choose an engine that stays deadlock-free here (dfsssp, updn)",
            r.engine, r.route_check->cdg->cycle_text);
}

// The credit-loop verdict after a repair: the dependencies it added,
// checked against the graph kept from the last full check
// (routing/cdg_memory.h) where that stands; else the graph of the repaired
// tables built afresh, which keeps a new one.
void check_repaired_dependencies(const Fabric& real, const SharedLfts& given, const SharedLfts& repaired,
                                 uint64_t changed_entries, const std::optional<routing::RouteCheck>& last,
                                 routing::RouteCheck& check, LogSink& log) {
  // Past this many changed entries the graph is built afresh: a switch lost
  // or back at 42k LIDs changes 150k-230k entries and every switch LID, and
  // there the update took about as long as building afresh, or longer
  // (bench/reroute.sh, k=34: the lost and back events); a cable changes a
  // few thousand.
  constexpr uint64_t kMostChangedEntries = 32768;
  const std::shared_ptr<routing::CdgMemory> kept = last && last->cdg ? last->cdg->memory : nullptr;
  const char* afresh = !kept ? "no graph kept from the last full check" : "over 32768 entries changed";
  if (kept && changed_entries <= kMostChangedEntries) {
    const std::optional<routing::CdgUpdate> update = routing::update_cdg_memory(*kept, real, given, repaired);
    if (update && (update->acyclic || !update->cycle.empty())) {
      check.cdg = routing::memory_report(kept, real, *update);
      check.cdg_update = *update;
      return;
    }
    afresh = !update ? "a node the kept graph does not know" : "stale dependencies not settled";
  }
  ibsm::log(log, LogLevel::debug, Subsystem::routing, "the repaired tables' dependency graph is built afresh: {}",
            afresh);
  Result<routing::CdgReport> cdg = routing::check_channel_dependencies(real, repaired, {.keep_graph = true});
  if (cdg.ok()) {
    check.cdg = std::move(*cdg);
  } else {
    check.cdg_error = cdg.status().message();
  }
}

}  // namespace

namespace {

// Node `n` as a switch with no cable, for the fabric that lacks it.
Node uncabled(const Node& n) {
  Node copy = n;
  for (uint8_t p = 1; p <= copy.num_ports && p < copy.ports.size(); ++p) {
    Port& port = copy.port(p);
    port.remote_node = NodeIndex{};
    port.remote_port = 0;
    port.state = PortState::down;
    port.phys_state = PhysState::disabled;
  }
  return copy;
}

// The switches of `from` that `to` lacks, by index; nullopt when an end
// port of `from` is missing from `to` too.
std::optional<std::vector<NodeIndex>> missing_switches(const Fabric& from, const Fabric& to) {
  std::vector<NodeIndex> missing;
  for (uint32_t i = 0; i < from.node_count(); ++i) {
    const Node& n = from.node(NodeIndex{i});
    if (to.find_by_node_guid(n.node_guid)) continue;
    if (!n.is_switch()) return std::nullopt;
    missing.push_back(NodeIndex{i});
  }
  return missing;
}

// Appends to `to` these switches of `from`, uncabled; false when one does not fit.
bool add_switches(const Fabric& from, const std::vector<NodeIndex>& switches, Fabric& to) {
  for (NodeIndex i : switches) {
    if (!to.add_node(uncabled(from.node(i))).ok()) return false;
  }
  return true;
}

}  // namespace

std::optional<SameSwitches> with_same_switches(const Fabric& before, const Fabric& now) {
  // Asked after every change that needs new routes: the fabrics (46k nodes
  // at 42k LIDs) are copied only when a switch came or went.
  const auto lost = missing_switches(before, now);
  const auto come = missing_switches(now, before);
  if (!lost || !come || (lost->empty() && come->empty())) return std::nullopt;
  SameSwitches s{before, now};
  if (!add_switches(now, *come, s.before) || !add_switches(before, *lost, s.now)) return std::nullopt;
  return s;
}

std::optional<SweepRoutes> repair_routes(const Fabric& before, SweepRoutes last, const Fabric& now, LogSink& log,
                                         const Fabric* checked) {
  if (!last.engine_used) return std::nullopt;
  Result<routing::RoutingGraph> graph = routing::RoutingGraph::build(now);
  if (!graph.ok()) return std::nullopt;
  const SharedLfts given = last.lfts;  // the rows, shared: the check compares against them
  auto mended = last.engine_used->repair(routing::RoutingInput{.graph = *graph, .log = log}, before, std::move(last.lfts));
  if (!mended) return std::nullopt;
  const Fabric& real = checked ? *checked : now;
  SweepRoutes r = std::move(last);
  r.lfts = std::move(mended->lfts);
  r.lfts.resize(real.node_count());  // a padded switch's row goes
  r.path_sl = owned_path_sl(r.engine_used, real);
  if (mended->changed_lids.empty()) {
    ibsm::log(log, LogLevel::info, Subsystem::routing, "{}: every entry still leads on a shortest path; tables kept",
              r.engine);
    return r;
  }
  ibsm::log(log, LogLevel::info, Subsystem::routing, "{}: tables mended: {} entries of {} LIDs changed", r.engine,
            mended->changed_entries, mended->changed_lids.size());
  // The walks through the changes stand for every pair when the last
  // tables were checked and found delivering every pair (routing/repair_check.h);
  // else, or when end ports changed, every pair is checked.
  std::optional<routing::RepairCheck> walks;
  if (r.route_check && r.route_check->all_delivered()) walks = routing::check_repaired_routes(before, real, given, r.lfts, 3);
  if (!walks) {
    routing::RouteCheckOptions options;
    options.pairs.max_problems = 3;
    options.engine = r.engine;
    options.vls.keep_graph = true;
    routing::RouteCheck check = routing::check_routes(real, r.lfts, options);
    r.port_routes = std::move(check.pairs.port_routes);
    record_check(r, std::move(check), log);
    if (r.route_check->has_cycle()) log_credit_loop(r, log);
    return r;
  }
  // The pairs and per-port loads stay the last full check's: the walks
  // count no pairs.
  routing::RouteCheck check;
  check.engine = r.engine;
  check.deadlock_free_promised = r.route_check->deadlock_free_promised;
  check.pairs = r.route_check->pairs;
  check.repair = std::move(*walks);
  check_repaired_dependencies(real, given, r.lfts, mended->changed_entries, r.route_check, check, log);
  record_check(r, std::move(check), log);
  if (r.route_check->has_cycle()) log_credit_loop(r, log);
  return r;
}

Result<RouteFunction> make_route_function(const std::string& chain_text, LogSink& log,
                                          const routing::EngineSettings& settings, AsideRunner aside) {
  routing::EngineRegistry registry;
  IBSM_RETURN_IF_ERROR(routing::register_builtin_engines(registry, settings));
  auto chain = routing::parse_engine_chain(chain_text, registry);
  if (!chain.ok()) return chain.status();
  LogSink* sink = &log;
  auto credit_loops = std::make_shared<uint64_t>(0);
  routing::EngineSettings engine_settings = settings;
  if (aside) engine_settings.aside = aside;  // the engines' own work beside them (their next searches)
  return RouteFunction([chain_text, sink, settings = std::move(engine_settings), credit_loops,
                        aside = std::move(aside)](const Fabric& snapshot) -> Result<SweepRoutes> {
    auto outcome = routing::route_snapshot(snapshot, chain_text, *sink, settings);
    if (!outcome.ok()) return outcome.status();
    SweepRoutes r;
    r.lfts = std::move(outcome->tables.lfts);
    r.engine = outcome->engine;
    r.engine_used = std::move(outcome->used);
    r.path_sl = owned_path_sl(r.engine_used, snapshot);
    if (r.engine_used) {
      const routing::RoutingInput input{*outcome->graph, *sink};
      r.sl2vl = r.engine_used->sl2vl(input);
      r.vl_arbitration = r.engine_used->vl_arbitration(input);
    }
    // Judge the tables before they are programmed (or while they are, with
    // `aside`), with the words `ibsm check` prints, on the VLs the engine's
    // SLs put the packets on. A failed check is logged, not fatal: the
    // tables are the best the chain could do, and routing part of a fabric
    // beats none. The check owns what it reads but the snapshot: the tables
    // (rows shared, never written), the engine and its graph.
    struct Check {
      routing::RouteCheck result;
      std::shared_ptr<const routing::RoutingEngine> engine;
      std::shared_ptr<const routing::RoutingGraph> graph;
      std::optional<std::vector<routing::Sl2VlTable>> sl2vl;
      SharedLfts lfts;
    };
    auto check = std::make_shared<Check>(Check{{}, r.engine_used, outcome->graph, r.sl2vl, r.lfts});
    auto job = [check, &snapshot, max_vls = settings.max_vls, engine = r.engine] {
      const routing::RoutingInput input{.graph = *check->graph, .max_vls = max_vls};
      routing::CdgOptions vls = routing::engine_vls(*check->engine, input, check->sl2vl);
      vls.keep_graph = true;  // for the repairs to come (routing/cdg_memory.h)
      check->result =
          routing::check_routes(snapshot, check->lfts, {.pairs = {.max_problems = 3}, .engine = engine, .vls = vls});
    };
    // A credit loop is logged (log_credit_loop) and counted for the metrics.
    auto record = [check, sink, credit_loops](SweepRoutes& routes) {
      routes.port_routes = std::move(check->result.pairs.port_routes);
      record_check(routes, std::move(check->result), *sink);
      if (routes.route_check->has_cycle()) {
        ++*credit_loops;
        log_credit_loop(routes, *sink);
      }
      routes.credit_loops = *credit_loops;
    };
    if (!aside) {
      job();
      record(r);
      return r;
    }
    r.pending_check = std::make_shared<SweepRoutes::PendingCheck>(
        SweepRoutes::PendingCheck{aside(std::move(job)), std::move(record)});
    return r;
  });
}

void settle_route_check(SweepRoutes& routes) {
  if (!routes.pending_check) return;
  const std::shared_ptr<SweepRoutes::PendingCheck> pending = std::move(routes.pending_check);  // leaves it null
  pending->wait();
  pending->record(routes);
}

}  // namespace ibsm
