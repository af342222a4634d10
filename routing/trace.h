// The route tracer: follows a packet from a source port to a destination LID
// hop by hop through the switches' linear forwarding tables, the way the
// hardware would, over a fabric snapshot: `ibsm check --trace`, the oracle of
// the route checker's tests (routing/route_check.h), and the words for the
// pairs that checker finds failed. It trusts nothing but the tables and the
// cables, so it judges any engine's output (or LFTs read back from a live
// fabric).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mad/base/types.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"

namespace ibsm::routing {

enum class TraceOutcome : uint8_t {
  delivered,    // reached the port that owns the LID
  unreachable,  // no entry (0xFF), beyond the table, a bad or unusable port
  loop,         // crossed more switches than the fabric has
};
const char* trace_outcome_name(TraceOutcome outcome);

// One switch on the way: where the packet came in and where it left.
struct TraceHop {
  NodeIndex node;
  uint8_t in_port = 0;
  uint8_t out_port = 0;  // 0 when the switch itself is the destination
};

struct Trace {
  TraceOutcome outcome = TraceOutcome::unreachable;
  std::vector<TraceHop> hops;  // the switches crossed, in order
  uint32_t cables = 0;         // cables crossed
  PortRef destination;         // the port it was delivered to
  std::string reason;          // why it was not delivered
};

// LFTs by NodeIndex (sm/fabric/lfts.h); a switch whose LFT is missing or
// short drops the LIDs it does not cover.
using ibsm::LftSet;

class RouteTracer {
 public:
  // Both must outlive the tracer.
  RouteTracer(const Fabric& fabric, LftSet lfts);

  // Follows a packet for `dlid` leaving `source`: a CA or router port, or a
  // switch (its port 0: the packet starts in that switch).
  Trace trace(PortRef source, Lid dlid) const;

 private:
  const Fabric& fabric_;
  LftSet lfts_;
  uint32_t max_switches_;
};

}  // namespace ibsm::routing
