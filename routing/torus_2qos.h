// torus-2QoS (OpenSM's name and meaning, torus-2QoS(8)): dimension-order
// routing on a 2D or 3D torus (or mesh, or a mix), free of credit loops on
// each of two QoS levels.
//
// Paths: x first, then y, then z (routing/torus_topology.h finds the
// dimensions), each the short way round its ring (a tie: "+"). Deadlock
// freedom comes from a dateline per torus dimension, between coordinates
// radix-1 and 0: a path's SL says which datelines it crosses (bit d for
// dimension d), and every switch port toward a neighbour in dimension d maps
// SL bit d to the VL of that hop. On a ring the packets that never cross
// take one VL and the ones that do another, and with shortest paths neither
// VL's dependencies close the ring; dimension order keeps turns from closing
// loops across dimensions (Dally and Seitz's dateline scheme, with the VL
// chosen by the SL on the whole ring rather than switched on the way).
//
// SL bit 3 is the QoS level, left to the SA and the QoS policy. Switch
// cables use VLs 0-1 for QoS level 0 and 2-3 for level 1; the endport cables
// (CA, router and switch port 0) VL 0 and VL 2. So one level needs 2 data VLs,
// two levels 4. (OpenSM uses 0-3 and 4-7, keeping VL bit 1 for the turns it
// adds around a failed switch, which this engine does not do.)
//
// A failed cable changes no path's SL: the SL comes from the path the
// pristine torus would take, and a path whose ring has lost a cable goes the
// other way round if it must ("the long way"). A ring with a cable missing
// cannot close a credit loop, so its dateline no longer matters. The pristine
// torus is the one the engine found last (TorusMemory, shared through
// EngineSettings by the engines one SM makes sweep after sweep): a fabric that
// still fits it (its switches known, its cables between neighbours there) is
// laid on it, not searched afresh. Without that a ring with a cable gone is
// found as a line (every SL 0), and a torus whose origin switch lost a cable
// is oriented from another switch (other datelines, other SLs). An SM that
// starts on a fabric already broken has no such memory; OpenSM's
// torus-2QoS.conf seeds fix the orientation for it. A ring
// broken twice between a path's ends (disjoint segments), a mesh line broken
// anywhere a path needs it, or a failed switch (OpenSM turns around those
// against dimension order; this engine does not) make the engine refuse the
// fabric, so the chain moves on.
//
// Cost: the topology search, then O(switches^2 x radix) for the next hops and
// one entry per (switch, LID) for the tables.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "routing/engine.h"
#include "routing/torus_config.h"
#include "routing/torus_topology.h"

namespace ibsm::routing {

inline constexpr std::string_view kTorus2QosName = "torus-2QoS";

class Torus2QosEngine final : public RoutingEngine {
 public:
  // `config`: OpenSM's torus-2QoS.conf, parsed (null: find the torus from
  // the cables alone).
  // `memory`: the torus the last routing found, read and written by compute()
  // (null: none, every routing searches afresh).
  explicit Torus2QosEngine(std::shared_ptr<const TorusConfig> config = nullptr,
                           std::shared_ptr<TorusMemory> memory = nullptr)
      : config_(std::move(config)), memory_(std::move(memory)) {}

  std::string_view name() const override { return kTorus2QosName; }
  Result<UnicastTables> compute(const RoutingInput& input) override;
  // Bits 0-2: the datelines the path crosses (of the torus the last
  // compute() found; 0 before one).
  uint8_t path_sl(const RoutingInput& input, Lid source, Lid destination) const override;
  bool assigns_sls() const override { return true; }
  // Every switch's (in-port, out-port) tables and every CA port's; see above.
  std::optional<std::vector<Sl2VlTable>> sl2vl(const RoutingInput& input) const override;

  // The torus the last compute() found.
  const std::optional<TorusTopology>& topology() const { return topology_; }

 private:
  std::shared_ptr<const TorusConfig> config_;
  std::shared_ptr<TorusMemory> memory_;
  std::optional<TorusTopology> topology_;
};

// The VL torus-2QoS puts an SL on: leaving a switch toward a neighbour in
// dimension `dim`, or (dim = kNoDirection) on an endport cable.
constexpr uint8_t torus_2qos_vl(uint8_t sl, uint8_t dim) {
  const uint8_t qos = static_cast<uint8_t>(((sl >> 3) & 1) * 2);
  return dim == kNoDirection ? qos : static_cast<uint8_t>(qos + ((sl >> dim) & 1));
}

}  // namespace ibsm::routing
