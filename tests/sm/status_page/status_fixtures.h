// Fabrics for the status page tests: generated, with LIDs, routed by min-hop
// and checked, so the page gets the loads the daemon would give it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "routing/graph.h"
#include "routing/minhop.h"
#include "routing/route_check.h"
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm::status::testing {

template <typename T>
T must(Result<T> r) {
  REQUIRE(r.ok());
  return std::move(*r);
}

// LIDs from 1 in node order: switch port 0, CA ports.
inline void assign_lids(Fabric& f) {
  uint16_t next = 1;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& node = f.node(NodeIndex{n});
    for (uint8_t p = node.is_switch() ? 0 : 1; p <= (node.is_switch() ? 0 : node.num_ports); ++p) {
      node.port(p).base_lid = Lid{next++};
    }
    for (Port& port : node.ports) port.state = PortState::active;
  }
}

struct Routed {
  std::shared_ptr<SubnetSnapshot> subnet = std::make_shared<SubnetSnapshot>();
  routing::RouteCheck check;
};

inline Routed route(Fabric f) {
  assign_lids(f);
  Routed r;
  const routing::RoutingGraph graph = must(routing::RoutingGraph::build(f));
  routing::MinHopEngine engine;
  routing::UnicastTables tables = must(engine.compute(routing::RoutingInput{graph}));
  r.check = routing::check_routes(f, tables.lfts, {.engine = "minhop"});
  r.subnet->fabric = std::move(f);
  r.subnet->lfts = std::move(tables.lfts);
  r.subnet->routing_engine = "minhop";
  r.subnet->sweep = 1;
  return r;
}

// How often `needle` occurs in `text`.
inline size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace ibsm::status::testing
