#include "routing/trace.h"

#include <algorithm>

#include <fmt/format.h>

#include "routing/engine.h"
#include "routing/graph.h"

namespace ibsm::routing {

const char* trace_outcome_name(TraceOutcome outcome) {
  switch (outcome) {
    case TraceOutcome::delivered: return "delivered";
    case TraceOutcome::unreachable: return "unreachable";
    case TraceOutcome::loop: return "loop";
  }
  return "?";
}

namespace {

bool owns_lid(const Port& port, Lid lid) {
  if (port.base_lid.value == 0) return false;
  return lid.value >= port.base_lid.value && static_cast<uint32_t>(lid.value - port.base_lid.value) < (1u << port.lmc);
}

// What one walk found, besides its outcome.
struct WalkEnd {
  PortRef destination;
  uint32_t cables = 0;
};

// Follows `dlid` from `source` as the hardware would; visit(node, in, out)
// sees every switch on the way (out 0 when the switch owns the LID).
// `reason` is only written when not null.
template <typename Visit>
TraceOutcome walk(const Fabric& fabric, LftSet lfts, uint32_t max_switches, PortRef source, Lid dlid,
                  WalkEnd& end, std::string* reason, Visit&& visit) {
  const auto fail = [&](TraceOutcome outcome, fmt::string_view format, const auto&... args) {
    if (reason != nullptr) *reason = fmt::vformat(format, fmt::make_format_args(args...));
    return outcome;
  };
  const auto cross = [&](PortRef from, NodeIndex& at, uint8_t& in_port) {
    const Port& port = fabric.node(from.node).port(from.port);
    at = port.remote_node;
    in_port = port.remote_port;
    ++end.cables;
  };

  NodeIndex at = source.node;
  uint8_t in_port = 0;
  const Node& first = fabric.node(source.node);
  if (!first.is_switch()) {
    if (owns_lid(first.port(source.port), dlid)) {
      end.destination = source;
      return TraceOutcome::delivered;
    }
    if (!cable_usable(fabric, source)) {
      return fail(TraceOutcome::unreachable, "source {} port {} has no usable link", first.node_guid, source.port);
    }
    cross(source, at, in_port);
  }

  for (uint32_t switches = 0;; ++switches) {
    const Node& node = fabric.node(at);
    if (!node.is_switch()) {
      if (owns_lid(node.port(in_port), dlid)) {
        end.destination = PortRef{at, in_port};
        return TraceOutcome::delivered;
      }
      return fail(TraceOutcome::unreachable, "lid {} arrived at {} port {}, which does not own it", dlid,
                  node.node_guid, in_port);
    }
    if (switches >= max_switches) {
      return fail(TraceOutcome::loop, "lid {} crossed more than {} switches (last {})", dlid, max_switches,
                  node.node_guid);
    }
    if (owns_lid(node.port(0), dlid)) {
      visit(at, in_port, uint8_t{0});
      end.destination = PortRef{at, 0};
      return TraceOutcome::delivered;
    }
    const std::vector<uint8_t>* lft = at.value < lfts.size() ? &lfts[at.value] : nullptr;
    if (lft == nullptr || dlid.value >= lft->size()) {
      return fail(TraceOutcome::unreachable, "switch {} has no lft entry for lid {}", node.node_guid, dlid);
    }
    const uint8_t out = (*lft)[dlid.value];
    if (out == kNoRoute) {
      return fail(TraceOutcome::unreachable, "switch {} has no route for lid {}", node.node_guid, dlid);
    }
    if (out == 0 || out > node.num_ports) {
      return fail(TraceOutcome::unreachable, "switch {} sends lid {} to port {}", node.node_guid, dlid, out);
    }
    const PortRef exit{at, out};
    if (!cable_usable(fabric, exit)) {
      return fail(TraceOutcome::unreachable, "switch {} sends lid {} to port {}, which has no usable link",
                  node.node_guid, dlid, out);
    }
    visit(at, in_port, out);
    cross(exit, at, in_port);
  }
}

}  // namespace

RouteTracer::RouteTracer(const Fabric& fabric, LftSet lfts)
    : fabric_(fabric), lfts_(lfts), max_switches_(static_cast<uint32_t>(fabric.switch_count())) {}

Trace RouteTracer::trace(PortRef source, Lid dlid) const {
  Trace t;
  WalkEnd end;
  t.outcome = walk(fabric_, lfts_, max_switches_, source, dlid, end, &t.reason,
                   [&](NodeIndex node, uint8_t in, uint8_t out) { t.hops.push_back({node, in, out}); });
  t.cables = end.cables;
  if (t.outcome == TraceOutcome::delivered) t.destination = end.destination;
  return t;
}

}  // namespace ibsm::routing
