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
// `reason` is only written when not null, so the all-pairs check formats
// nothing for the pairs that are fine.
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

std::string CheckSummary::to_string() const {
  return fmt::format(
      "pairs {}: delivered {}, unreachable {}, looping {}; hops max {} mean {:.2f}; "
      "routes per switch link max {} mean {:.1f} over {} links",
      pairs, delivered, unreachable, looping, max_hops, mean_hops, max_link_routes, mean_link_routes, switch_links);
}

CheckSummary check_all_pairs(const Fabric& fabric, LftSet lfts, const CheckOptions& options) {
  CheckSummary summary;
  const uint32_t max_switches = static_cast<uint32_t>(fabric.switch_count());

  // Route counters per (node, port), at port_base[node] + port.
  std::vector<uint32_t> port_base(fabric.node_count() + 1, 0);
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    port_base[n + 1] = port_base[n] + fabric.node(NodeIndex{n}).num_ports + 1u;
  }
  std::vector<uint64_t> routes(port_base.back(), 0);

  std::vector<PortRef> endpoints;
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    if (node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (node.port(static_cast<uint8_t>(p)).base_lid.value != 0) {
        endpoints.push_back({NodeIndex{n}, static_cast<uint8_t>(p)});
      }
    }
  }

  const uint32_t stride = options.source_stride == 0 ? 1 : options.source_stride;
  std::vector<uint32_t> used;  // counters the current route passes
  uint64_t total_cables = 0;
  std::string reason;
  for (size_t s = 0; s < endpoints.size(); s += stride) {
    const PortRef source = endpoints[s];
    for (const PortRef& target : endpoints) {
      if (target == source) continue;
      const Port& tp = fabric.node(target.node).port(target.port);
      const uint32_t lids = options.all_lids ? 1u << tp.lmc : 1u;
      for (uint32_t i = 0; i < lids; ++i) {
        const Lid dlid{static_cast<uint16_t>(tp.base_lid.value + i)};
        ++summary.pairs;
        used.clear();
        WalkEnd end;
        const bool describe = summary.problems.size() < options.max_problems;
        const TraceOutcome outcome =
            walk(fabric, lfts, max_switches, source, dlid, end, describe ? &reason : nullptr,
                 [&](NodeIndex node, uint8_t, uint8_t out) { used.push_back(port_base[node.value] + out); });
        if (outcome == TraceOutcome::delivered && end.destination != target) {
          ++summary.unreachable;  // the tables deliver it, but to the wrong port: the LIDs are inconsistent
          if (describe) {
            summary.problems.push_back(fmt::format("{} port {} -> lid {}: delivered to {} port {}",
                                                   fabric.node(source.node).node_guid, source.port, dlid,
                                                   fabric.node(end.destination.node).node_guid,
                                                   end.destination.port));
          }
          continue;
        }
        if (outcome == TraceOutcome::delivered) {
          ++summary.delivered;
          summary.max_hops = std::max(summary.max_hops, end.cables);
          total_cables += end.cables;
          for (uint32_t id : used) ++routes[id];
          continue;
        }
        ++(outcome == TraceOutcome::loop ? summary.looping : summary.unreachable);
        if (describe) {
          summary.problems.push_back(fmt::format("{} port {} -> lid {}: {}: {}", fabric.node(source.node).node_guid,
                                                 source.port, dlid, trace_outcome_name(outcome), reason));
        }
      }
    }
  }
  if (summary.delivered > 0) summary.mean_hops = static_cast<double>(total_cables) / static_cast<double>(summary.delivered);

  // Load on each direction of every usable switch-to-switch cable.
  uint64_t total_routes = 0;
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      const PortRef here{NodeIndex{n}, static_cast<uint8_t>(p)};
      if (!cable_usable(fabric, here)) continue;
      if (!fabric.node(node.port(here.port).remote_node).is_switch()) continue;
      const uint64_t r = routes[port_base[n] + p];
      ++summary.switch_links;
      total_routes += r;
      summary.max_link_routes = std::max(summary.max_link_routes, r);
    }
  }
  if (summary.switch_links > 0) {
    summary.mean_link_routes = static_cast<double>(total_routes) / static_cast<double>(summary.switch_links);
  }
  return summary;
}

}  // namespace ibsm::routing
