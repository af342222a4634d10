// Finding the torus (or mesh) in a fabric's switch graph, for torus-2QoS
// (routing/torus_2qos.h): every switch's coordinates, the radix of each
// dimension, whether it wraps, and the direction each switch-to-switch cable
// points in.
//
// Directions are found by "parallel transport" around the 4-cycles a
// Cartesian product of rings and lines is made of: if v -> u points in d and
// u -> x in e (another dimension), the neighbour y that v and x share besides
// u lies in direction e from v (for radix 3 and more, v and v+d+e share
// exactly those two neighbours). That rule, a cable's two ends pointing in
// opposite directions, and "the one cable left goes straight on" label every
// cable from the origin switch's, even with failed cables here and there.
// The origin's own cables are paired into dimensions by trying each way of
// pairing them (at most 15 for six neighbours) until one labels the whole
// fabric consistently; a radix-4 ring, whose opposite neighbours share a
// neighbour like two dimensions do, is told apart this way.
//
// Without a config: the origin is the switch with the most neighbour
// switches (lowest node GUID among them), dimensions are numbered in the
// order of its lowest port toward them, and "+" is the way its lower port
// points; radices and wrapping come from the rings found. With OpenSM's
// torus-2QoS.conf (routing/torus_config.h): the first seed whose switches
// are there gives the origin and the directions of its links, the config
// the radices, and the seed's datelines move the origin.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mad/base/status.h"
#include "routing/graph.h"
#include "routing/torus_config.h"

namespace ibsm::routing {

// A direction: 2 * dimension + (1 for the "-" way).
inline constexpr uint8_t kNoDirection = 0xFF;

struct TorusTopology {
  std::array<uint32_t, kTorusDims> radix{1, 1, 1};  // 1: no such dimension
  std::array<bool, kTorusDims> wraps{};              // a torus dimension (a ring), or a mesh line
  // By SwitchId: its coordinates.
  std::vector<std::array<uint32_t, kTorusDims>> coord;
  // By position (x + radix_x * (y + radix_y * z)): the switch there, or kNoSwitch.
  std::vector<SwitchId> at;
  // By edge index of the routing graph: the direction the cable points in.
  std::vector<uint8_t> edge_dir;
  // Where the torus came from, for logs: "auto" or "seed 1 of torus-2QoS.conf".
  uint32_t seed = 0;  // 0: found without a config; n: the config's n-th seed

  uint32_t positions() const { return radix[0] * radix[1] * radix[2]; }
  uint32_t position(const std::array<uint32_t, kTorusDims>& c) const {
    return c[0] + radix[0] * (c[1] + radix[1] * c[2]);
  }
  // "4x4x4 torus", "4x4 mesh", "3t x 5m" (mixed).
  std::string shape() const;
};

// Finds the torus or mesh of `graph`, from its cables alone or from
// `config` (null: none). Fails, saying why, when the switch graph is not a
// 1D to 3D torus or mesh (or not the one the config describes).
Result<TorusTopology> discover_torus(const RoutingGraph& graph, const TorusConfig* config);

// The torus found last, by switch node GUID, kept from one routing to the
// next (EngineSettings::torus_memory): a fabric that has lost cables (or
// switches) is laid on it again, so its coordinates, "+" ways, datelines and
// wrapping, and with them every path's SL, stay those of the pristine torus.
// Found afresh, a ring of five with one cable gone is a line (every SL 0), and
// a torus whose origin switch lost a cable is oriented from another switch
// (its datelines move). Like OpenSM's seed in torus-2QoS.conf, only kept by
// the SM rather than written by the operator.
struct TorusMemory {
  std::array<uint32_t, kTorusDims> radix{1, 1, 1};
  std::array<bool, kTorusDims> wraps{};
  uint32_t seed = 0;
  // The torus-2QoS.conf it was found with (null: from the cables alone): a
  // config reloaded since makes the next routing search afresh.
  std::shared_ptr<const TorusConfig> config;
  // Sorted by GUID: each switch's coordinates.
  std::vector<std::pair<Guid, std::array<uint32_t, kTorusDims>>> coord;

  bool empty() const { return coord.empty(); }
};

// `t`, found on `graph`, as a memory.
TorusMemory remember_torus(const RoutingGraph& graph, const TorusTopology& t);

// `graph` laid on the remembered torus: nullopt unless every switch of it is
// remembered and every switch-to-switch cable joins two switches that are
// neighbours there (then the direction of each cable follows from the two
// coordinates). Places no longer taken (a switch gone) stay empty.
std::optional<TorusTopology> recall_torus(const RoutingGraph& graph, const TorusMemory& memory);

}  // namespace ibsm::routing
