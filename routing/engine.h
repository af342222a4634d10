// The routing engine interface (DESIGN.md "Routing engine interface"): an
// engine computes tables for an immutable fabric snapshot and never sends a
// MAD; the sweep programs what it returns. One method is required (unicast
// tables); the others are hooks whose defaults suit an engine that has no
// opinion on SLs, VLs or multicast.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "mad/base/aside_runner.h"
#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/base/types.h"
#include "routing/graph.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm::routing {

// An LFT entry that forwards nowhere (sm/fabric/lfts.h).
using ibsm::kNoRoute;

// Linear forwarding tables for every switch of a snapshot.
struct UnicastTables {
  // By NodeIndex: a switch's LFT indexed by LID (its own LIDs map to port 0,
  // kNoRoute where there is no route); empty for CAs and routers.
  std::vector<std::vector<uint8_t>> lfts;
  // SwitchInfo:LinearFDBTop (IBA 14.2.5.4) to program on every switch: the
  // highest LID with an entry; every switch's LFT has linear_fdb_top + 1 entries.
  Lid linear_fdb_top;

  // Tables for `graph`'s fabric with every entry kNoRoute and every switch's
  // own LIDs mapped to port 0.
  static UnicastTables unrouted(const RoutingGraph& graph);
  // The out-port of switch `sw` for `lid`: kNoRoute beyond the table.
  uint8_t port(NodeIndex sw, Lid lid) const;
};

// Tables an engine mended after a small change (RoutingEngine::repair).
// Only the rows it changed are new: the others still share the memory of
// the tables it was given (SharedLfts copies a row on its first write).
struct RepairedTables {
  SharedLfts lfts;
  // The LIDs with an entry changed on some switch, ascending: the
  // destinations the caller re-checks (the others route as before).
  std::vector<uint16_t> changed_lids;
  uint64_t changed_entries = 0;
};

// Checks the shape of tables an engine returned for `graph`'s fabric: one
// entry per node, an LFT of linear_fdb_top + 1 entries for each switch and
// none for anything else, no port beyond the switch's ports.
Status validate_tables(const RoutingGraph& graph, const UnicastTables& tables);

// What an engine gets: the snapshot's shared graph (and through it the
// snapshot) and where to log.
class MulticastTreeBuilder;
struct RoutingInput {
  const RoutingGraph& graph;
  LogSink& log = null_log_sink();
  // The snapshot's multicast roots and trees, built once (routing/multicast_tree.h);
  // null: the default multicast hook builds its own for each call.
  MulticastTreeBuilder* multicast = nullptr;
  // The data VLs an engine that assigns SLs may use (the configured
  // max_op_vls as a count of VLs: 1, 2, 4, 8 or 15). vl_budget()
  // (routing/vl_budget.h) narrows it by the ports' VLCap.
  uint8_t max_vls = 15;
  // Where an engine may run part of its work beside its own (min-hop and
  // up*/down* search their next 64 destinations' paths there); empty: in place.
  AsideRunner aside = {};
  const Fabric& fabric() const { return graph.fabric(); }
};

// SL to VL mapping of one (switch, in-port, out-port) or CA port (in = out = port).
struct Sl2VlTable {
  NodeIndex node;
  uint8_t in_port = 0;
  uint8_t out_port = 0;
  std::array<uint8_t, 16> vl_of_sl{};
};

// VL arbitration of one port (IBA 14.2.5.9): (VL, weight) entries of the high
// and low priority tables and the high priority limit.
struct VlArbTable {
  NodeIndex node;
  uint8_t port = 0;
  uint8_t high_limit = 0;
  std::vector<std::pair<uint8_t, uint8_t>> high;
  std::vector<std::pair<uint8_t, uint8_t>> low;
};

// Multicast port sets live in the subnet model (the SA and the dumps read them too).
using ibsm::PortMask;

// A multicast group's spanning tree: by NodeIndex, the ports each switch
// forwards the group's packets to (empty for switches off the tree and CAs).
struct MulticastTree {
  std::vector<PortMask> ports;
};

// The defaults of the hooks below, callable on their own (an engine
// overriding a hook may still want them).
// The default tree (routing/multicast_tree.h): a shortest-path tree rooted at
// a central switch chosen by the MLID, pruned to the members.
Result<MulticastTree> shortest_path_multicast_tree(const RoutingInput& input, Lid mlid,
                                                   std::span<const PortRef> members);
bool routing_relevant_change(const Fabric& before, const Fabric& after);

// Every method is defined in this header: with no out-of-line virtual
// function there is no key function, so the vtable and type info are emitted
// wherever an engine is defined. The core is built without RTTI, and an
// engine defined in code built with it (a test) would otherwise miss them.
class RoutingEngine {
 public:
  virtual ~RoutingEngine() = default;

  // The name the registry and `routing_engine` use ("minhop").
  virtual std::string_view name() const = 0;

  // Unicast tables for the snapshot. An engine that cannot handle the
  // topology (ftree on a torus) returns a Status saying why; the chain logs
  // it and tries the next engine.
  virtual Result<UnicastTables> compute(const RoutingInput& input) = 0;

  // The SL for a path (for SA PathRecords); 0 by default. An engine that
  // overrides it says so with assigns_sls(): only then does the sweep keep
  // the routing graph alive for the SA to ask (the core has no RTTI to tell).
  virtual uint8_t path_sl(const RoutingInput&, Lid /*source*/, Lid /*destination*/) const { return 0; }
  virtual bool assigns_sls() const { return false; }
  // SL to VL tables to program; nullopt: the SM's default mapping.
  virtual std::optional<std::vector<Sl2VlTable>> sl2vl(const RoutingInput&) const { return std::nullopt; }
  // VL arbitration tables to program; nullopt: the SM's default.
  virtual std::optional<std::vector<VlArbTable>> vl_arbitration(const RoutingInput&) const { return std::nullopt; }
  // A spanning tree for the multicast group `mlid` with these member ports
  // (CA ports, or port 0 of a switch). It must not depend on the members'
  // order, so a join or a leave changes only that member's branch. The
  // default is a shortest-path tree rooted at a central switch chosen by the
  // MLID, pruned to the members (routing/multicast_tree.h).
  virtual Result<MulticastTree> multicast_tree(const RoutingInput& input, Lid mlid,
                                               std::span<const PortRef> members) const {
    return shortest_path_multicast_tree(input, mlid, members);
  }
  // The switches the default tree spreads the MLIDs over as roots; empty:
  // the fabric's central switches. An engine with a notion of top (ftree's
  // top level, updn's roots) names it, so multicast climbs and descends the
  // way its unicast routes do.
  virtual std::vector<SwitchId> multicast_roots(const RoutingInput&) const { return {}; }
  // Whether a change from `before` to `after` needs new tables. The default
  // says yes when the usable cables or the LIDs differ (matched by GUID).
  virtual bool needs_reroute(const Fabric& before, const Fabric& after) const {
    return routing_relevant_change(before, after);
  }
  // After a change that needs new tables: `last`, the tables this engine
  // made for `before` (moved to `input`'s node indices), mended for
  // `input`'s fabric with the guarantees compute() gives, far cheaper than
  // computing them again. nullopt (the default): compute afresh.
  virtual std::optional<RepairedTables> repair(const RoutingInput& /*input*/, const Fabric& /*before*/,
                                               SharedLfts /*last*/) const {
    return std::nullopt;
  }
};

}  // namespace ibsm::routing
