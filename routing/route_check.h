// The route checker: judges a set of forwarding tables over a fabric
// snapshot, for `ibsm check` and for the daemon after every routing. Like
// the route tracer (routing/trace.h) it trusts nothing but the tables and
// the cables, so it judges any engine's output and LFTs read back from a
// live fabric alike.
//
// check_all_pairs gives what tracing every CA-to-CA pair hop by hop would
// (the tracer is the test oracle), without tracing a single pair: toward one
// destination LID every switch has one out-port, so the routes of all
// sources form an in-forest. Each switch's way to the LID is resolved once
// (memoised, with a loop found by meeting a switch still being resolved), the
// sources are counted per switch they hang off, and the routes over each
// cable are the sources gathered along the forest. Cost: O(switches x LIDs +
// source switches x destinations), not O(pairs x hops). The LIDs behind one
// switch are checked together without any walk when every switch sends
// them one hop nearer (the forest is then a shortest-path one: every pair
// delivered, by a shortest route); min-hop, ftree and updn on fat trees
// take that way, with the CDG in under half the time at 42k LIDs
// (bench/scale.sh).
//
// check_routes adds the channel dependency graph (routing/cdg.h) and the
// engine's promise: updn, dnup and ftree promise acyclic dependencies, so a
// cycle in their tables is a failure, while min-hop's is only reported.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "routing/cdg.h"
#include "routing/cdg_memory.h"
#include "routing/port_routes.h"
#include "routing/repair_check.h"
#include "routing/trace.h"
#include "sm/fabric/fabric.h"

namespace ibsm::routing {

// The pairs: every endpoint port (CA and router ports with a LID) to every
// LID of every other endpoint port. Switch LIDs are no destinations.
struct CheckOptions {
  // Count from every n-th source port only (1: all). The check costs the
  // same per destination whatever the stride; a sample only makes the counts
  // smaller (and comparable with an older sampled run).
  uint32_t source_stride = 1;
  // Destination LIDs per port: all 2^LMC of them, or only the base LID.
  bool all_lids = true;
  // How many failed pairs to describe in CheckSummary::problems.
  size_t max_problems = 10;
  // Only these destination LIDs (ascending), the changed ones after a route
  // repair; nullopt: every LID. The link loads then count only their routes.
  std::optional<std::vector<uint16_t>> destination_lids;
};

struct CheckSummary {
  uint64_t pairs = 0;
  uint64_t delivered = 0;    // to the port that owns the LID
  uint64_t unreachable = 0;  // dropped, or delivered to a port that is not the pair's
  uint64_t looping = 0;
  uint32_t max_hops = 0;  // cables crossed by the longest delivered route
  double mean_hops = 0;
  // Stretch of a delivered pair: its cables over the fewest cables any path
  // over usable cables takes between the two ports.
  double max_stretch = 0;
  double mean_stretch = 0;
  uint64_t longer_than_shortest = 0;  // delivered pairs with stretch above 1
  // Routes (delivered pairs) per direction of every usable switch-to-switch
  // cable, those carrying none included.
  uint64_t switch_links = 0;  // directed: two per cable
  uint64_t max_link_routes = 0;
  double mean_link_routes = 0;
  double stddev_link_routes = 0;  // population standard deviation
  // The same routes per port: every switch port whose usable cable leads to
  // a switch or to an endpoint port with a LID, by node then port. The ones
  // toward endpoints are the routes into those CA ports (the CA-to-switch
  // direction is not counted).
  std::vector<PortRoutes> port_routes;
  std::vector<std::string> problems;  // the first failed pairs, readable

  bool all_delivered() const { return delivered == pairs; }
  // One line: "pairs 240: delivered 240, unreachable 0, looping 0; hops max
  // 4 mean 3.10; stretch max 1.00 mean 1.00, 0 longer than shortest; routes
  // per switch link max 12 mean 8.0 stddev 2.1 over 96 links".
  std::string to_string() const;
};

CheckSummary check_all_pairs(const Fabric& fabric, LftSet lfts, const CheckOptions& options = {});

// Whether the engine of this name promises tables without a channel
// dependency cycle (updn, dnup, ftree; dfsssp, lash and torus-2QoS on the VLs of
// their SLs).
bool promises_deadlock_freedom(std::string_view engine);

class RoutingEngine;
struct RoutingInput;
// The VL of each packet as an engine that assigns SLs sends it: the SL its
// path_sl gives (source port's base LID, destination LID), then, when the
// engine gives sl2vl() tables, the VL each port pair's table maps it to at
// every hop (CdgOptions' SL2VL mode; the SL itself for a port pair without a
// table); without tables the SL is the VL on every cable (the identity).
// Empty options (every packet on VL 0) for an engine that assigns no SLs.
// The options call `engine` with `input`: both must outlive them.
CdgOptions engine_vls(const RoutingEngine& engine, const RoutingInput& input);
// The same with the engine's sl2vl(input) already asked for (the sweep asks
// once, for programming and for the check: a layered engine builds a table
// per switch port pair).
CdgOptions engine_vls(const RoutingEngine& engine, const RoutingInput& input,
                      const std::optional<std::vector<Sl2VlTable>>& tables);

struct RouteCheckOptions {
  CheckOptions pairs;
  // The engine that made the tables ("" when unknown): the verdict holds a
  // cycle against an engine that promises deadlock freedom.
  std::string engine;
  // The VL of each packet for the dependency graph: empty, every packet on
  // VL 0; the daemon's routing step hands in engine_vls() of the engine
  // used, `ibsm check` the SLs of a path SL file.
  CdgOptions vls;
};

struct RouteCheck {
  std::string engine;
  bool deadlock_free_promised = false;
  CheckSummary pairs;
  std::optional<CdgReport> cdg;  // empty when the graph could not be built
  std::string cdg_error;         // why not
  // After a route repair (RoutingEngine::repair): the walks through what
  // it changed (routing/repair_check.h); `pairs` is then the last full
  // check's.
  std::optional<RepairCheck> repair;
  // After a repair whose new dependencies were checked against the graph
  // kept from the last full check (routing/cdg_memory.h): what it added;
  // `cdg` is then that check's report. Without it `cdg` is the graph of the
  // repaired tables built afresh (or empty: not checked).
  std::optional<CdgUpdate> cdg_update;

  bool has_cycle() const { return cdg && !cdg->acyclic(); }
  // Every pair delivered: the pairs counted, and after a repair every walk
  // through what it changed.
  bool all_delivered() const { return pairs.all_delivered() && (!repair || repair->all_delivered()); }
  // Every pair delivered, and no cycle (or none promised) nor a failed
  // graph; after a repair, every walk through a change delivered.
  bool ok() const;
  // One line, the same for `ibsm check` and the daemon's log:
  // "routing check (updn): 240/240 pairs delivered, hops max 4 mean 3.1,
  // stretch max 1.00, link routes max 12 mean 8.0 stddev 2.1, cdg acyclic";
  // failures say "(8 unreachable, 2 looping)" and "cdg cycle on vl 0: ...".
  std::string to_string() const;
};

RouteCheck check_routes(const Fabric& fabric, LftSet lfts, const RouteCheckOptions& options = {});

}  // namespace ibsm::routing
