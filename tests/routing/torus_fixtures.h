// Helpers shared by the dimension-order routing tests (dor, torus-2QoS).
#pragma once

#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/cdg.h"
#include "routing/engine.h"
#include "routing/graph.h"
#include "routing_fixtures.h"
#include "sm/fabric/fabric.h"

namespace ibsm::routing::testing {

// The switch of a generated mesh or torus named sw-x[-y[-z]].
inline NodeIndex switch_named(const Fabric& f, std::string_view name) {
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (f.node(NodeIndex{n}).name == name) return NodeIndex{n};
  }
  FAIL("no node " << name);
  return {};
}

// Its coordinates, read back from the name.
inline std::array<uint32_t, 3> coordinates_of_name(std::string_view name) {
  std::array<uint32_t, 3> c{};
  size_t d = 0;
  for (size_t i = name.find('-'); i != std::string_view::npos && d < 3; i = name.find('-', i + 1)) {
    c[d++] = static_cast<uint32_t>(std::stoul(std::string(name.substr(i + 1))));
  }
  return c;
}

// Cuts the cable at `sw`'s port `port`.
inline void cut(Fabric& f, NodeIndex sw, uint8_t port) {
  REQUIRE(f.node(sw).port(port).connected());
  f.disconnect(PortRef{sw, port});
}

// The LID a packet from `p` carries as its SLID: a CA port's, or the
// switch's for its port 0.
inline Lid lid_of(const Fabric& f, PortRef p) { return f.node(p.node).port(p.port).base_lid; }

// CDG options in SL2VL mode from an engine's SLs (plus `qos_bit`, 0 or 8)
// and its tables.
inline CdgOptions sl2vl_options(const Fabric& f, const RoutingEngine& engine, const RoutingInput& input,
                                const std::vector<Sl2VlTable>& tables, uint8_t qos_bit = 0) {
  CdgOptions options;
  options.path_sl = [&f, &engine, &input, qos_bit](PortRef source, Lid dlid) {
    return static_cast<uint8_t>(engine.path_sl(input, lid_of(f, source), dlid) | qos_bit);
  };
  options.sl2vl = sl2vl_lookup(f, tables, 15);
  return options;
}

// Every endpoint LID to every other: the engine's SL for each pair.
inline std::vector<uint8_t> all_path_sls(const Fabric& f, const RoutingEngine& engine, const RoutingInput& input) {
  std::vector<uint8_t> out;
  const std::vector<PortRef> ends = endpoint_ports(f);
  for (PortRef a : ends) {
    for (PortRef b : ends) {
      if (a != b) out.push_back(engine.path_sl(input, lid_of(f, a), lid_of(f, b)));
    }
  }
  return out;
}

}  // namespace ibsm::routing::testing
