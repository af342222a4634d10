// Up*/down* routing (updn) and its mirror image (dnup): deadlock-free
// routing on any topology by a turn rule (Schroeder et al., Autonet). The
// switches are ranked, which makes every switch-to-switch edge go either up
// or down; a route may go up and then down, never up again after it went
// down. Every channel dependency is then up->up, up->down or down->down;
// up edges lead strictly toward lower (rank, GUID) keys and down edges
// strictly toward higher ones, so a cycle would need a down->up dependency,
// which no route makes: the fabric cannot deadlock on VL 0.
//
// updn ranks switches by hop distance from root switches: given as node
// GUIDs (OpenSM's root_guid_file, see routing/guid_list.h) or found
// automatically. An edge goes up toward the lower rank; between equal ranks
// toward the lower node GUID, so every edge has exactly one direction.
//
// dnup (OpenSM's DNUP) ranks switches by hop distance from the switches that
// CAs hang off, and the route goes first away from the CAs and then back
// toward them ("down" then "up" in OpenSM's words, where down is the higher
// rank). It suits fabrics whose CAs hang off switches at several levels.
// Expressed in this file's terms it is up*/down* where "up" leads to a
// higher CA rank; between equal CA ranks the updn order of automatic roots
// decides, then the node GUID.
//
// Routes follow shortest legal paths (routing/updown_paths.h for the exact
// rule) with min-hop's balanced port choice and LMC spreading
// (routing/balanced_routes.h).
//
// What up*/down* cannot do: with several roots (or several switches at the
// top of the dnup ranking) two of them have no legal path between each
// other, and the same goes for some other pairs of switches without CAs;
// their management LIDs get no route from those switches (OpenSM documents
// the same). Pairs of switches that both have CAs always need a legal path.
// When automatic roots leave such a pair out (a fat tree with failed
// cables), updn retries with one central root per component, which always
// works (a single root is the one switch without an up edge, and every
// switch climbs to it); dnup whose ranking leaves a pair out ranks as updn
// does. Given roots that leave
// a pair out are refused. Switches in different components of a split
// fabric get no routes to each other, as with min-hop.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "routing/engine.h"
#include "routing/graph.h"

namespace ibsm::routing {

inline constexpr std::string_view kUpDnName = "updn";
inline constexpr std::string_view kDnUpName = "dnup";

// The direction of every switch-to-switch edge, and the ranking it came from.
struct UpDownOrientation {
  // updn: the roots (rank 0), in switch order; dnup: the switches CAs hang off.
  std::vector<SwitchId> roots;
  // By SwitchId: hop distance from the roots (updn) or from the nearest
  // switch with CAs (dnup).
  std::vector<uint32_t> rank;
  // By edge index: 1 when the edge goes up (the part of a route that comes first).
  std::vector<uint8_t> up;
};

// updn's automatic roots, component by component. Where some switches have
// no CA, the roots are the switches farthest from any switch with CAs (on a
// fat tree: its top level). Where every switch has CAs (tori, meshes,
// dragonflies, random graphs), or none does, the one most central switch:
// the least eccentricity toward the switches with CAs among the switches
// halfway along a longest shortest path found by a double sweep, then the
// least total distance, then the lowest node GUID.
std::vector<SwitchId> find_updn_roots(const RoutingGraph& graph);
// One central switch per component, chosen as above.
std::vector<SwitchId> find_center_roots(const RoutingGraph& graph);

// The switches with these node GUIDs, in the order given. Fails naming the
// first GUID that is no node of the fabric or not a switch.
Result<std::vector<SwitchId>> switches_by_guid(const RoutingGraph& graph, std::span<const Guid> guids);

// updn's ranking from `roots` (switch ids, repeats ignored). A component
// without a root gets its automatic roots (find_updn_roots), so a fabric
// split by a failure still routes.
UpDownOrientation updn_orientation(const RoutingGraph& graph, std::span<const SwitchId> roots);
// dnup's ranking.
UpDownOrientation dnup_orientation(const RoutingGraph& graph);

// Tables along shortest legal paths for `orientation` (what both engines
// run). Fails, naming them, when two switches with CAs in one component
// have no legal path between them; `engine` names the engine in the log.
Result<UnicastTables> route_up_down(const RoutingInput& input, const UpDownOrientation& orientation,
                                    std::string_view engine);

struct UpDnOptions {
  // Root switches by node GUID; empty: found automatically.
  std::vector<Guid> roots;
};

class UpDnEngine final : public RoutingEngine {
 public:
  UpDnEngine() = default;
  explicit UpDnEngine(UpDnOptions options) : options_(std::move(options)) {}

  std::string_view name() const override { return kUpDnName; }
  // Refuses a fabric without switches, a given root that is not a switch of
  // the fabric, and given roots that leave two switches with CAs without a
  // legal path.
  Result<UnicastTables> compute(const RoutingInput& input) override;

  // The ranking the last successful compute() routed with.
  const UpDownOrientation& orientation() const { return orientation_; }
  // The roots it ranked from, when it routed this graph: a group's packets
  // then go up to a root and down, as the unicast routes do.
  std::vector<SwitchId> multicast_roots(const RoutingInput& input) const override {
    if (orientation_.rank.size() != input.graph.switch_count()) return {};
    return orientation_.roots;
  }

 private:
  UpDnOptions options_;
  UpDownOrientation orientation_;
};

class DnUpEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return kDnUpName; }
  // Refuses a fabric without switches.
  Result<UnicastTables> compute(const RoutingInput& input) override;

  const UpDownOrientation& orientation() const { return orientation_; }

 private:
  UpDownOrientation orientation_;
};

}  // namespace ibsm::routing
