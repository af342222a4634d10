// Shared helpers for the routing tests: generated fabrics with LIDs, an
// independent shortest-path oracle, and checks of routed tables. The oracle
// works on the Fabric directly, not on RoutingGraph, so a bug in the graph
// cannot hide itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "routing/engine.h"
#include "routing/graph.h"
#include "routing/minhop.h"
#include "routing/route_check.h"
#include "routing/trace.h"
#include "sm/fabric/fabric.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing::testing {

template <typename T>
T must(Result<T> r) {
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  return std::move(r).value();
}

inline void must(const Status& s) {
  INFO(s.to_string());
  REQUIRE(s.ok());
}

// The switch-to-switch cables of `f`: what topogen::fail_links draws from
// by default. A failed-cable case asks for no more than its fixture has, and
// then requires fail_links to succeed.
inline uint64_t switch_cables(const Fabric& f) {
  uint64_t n = 0;
  for (const Link& l : f.links()) n += f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch() ? 1 : 0;
  return n;
}

// A plain LID assignment: one LID per switch (on every port, as a switch
// answers it), 2^lmc aligned LIDs per cabled CA port, in node order.
inline void assign_lids(Fabric& f, uint8_t lmc = 0) {
  uint32_t next = 1;
  const uint32_t block = 1u << lmc;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& node = f.node(NodeIndex{n});
    if (node.is_switch()) {
      for (Port& p : node.ports) p.base_lid = Lid{static_cast<uint16_t>(next)};
      ++next;
      continue;
    }
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      Port& port = node.port(static_cast<uint8_t>(p));
      if (!port.connected()) continue;
      next = (next + block - 1) / block * block;
      port.base_lid = Lid{static_cast<uint16_t>(next)};
      port.lmc = lmc;
      next += block;
    }
  }
  REQUIRE(next - 1 <= Lid::max_unicast);
}

inline bool usable_state(PortState s) {
  return s == PortState::init || s == PortState::armed || s == PortState::active;
}

// Whether the cable at (n, p) carries traffic: cabled, both ends INIT or better.
inline bool cable_up(const Fabric& f, NodeIndex n, unsigned p) {
  const Port& here = f.node(n).port(static_cast<uint8_t>(p));
  if (!here.connected() || !usable_state(here.state)) return false;
  return usable_state(f.node(here.remote_node).port(here.remote_port).state);
}

inline constexpr uint32_t kFar = UINT32_MAX;

// Breadth-first hop distances from the switches `sources` (distance 0) to
// every switch over usable switch-to-switch cables (CAs do not forward); kFar
// for CAs and unreached switches. Indexed by NodeIndex.
inline std::vector<uint32_t> switch_distances(const Fabric& f, std::span<const uint32_t> sources) {
  std::vector<uint32_t> d(f.node_count(), kFar);
  std::queue<uint32_t> todo;
  for (uint32_t s : sources) {
    d[s] = 0;
    todo.push(s);
  }
  while (!todo.empty()) {
    const uint32_t at = todo.front();
    todo.pop();
    const Node& node = f.node(NodeIndex{at});
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!cable_up(f, NodeIndex{at}, p)) continue;
      const uint32_t next = node.port(static_cast<uint8_t>(p)).remote_node.value;
      if (!f.node(NodeIndex{next}).is_switch() || d[next] != kFar) continue;
      d[next] = d[at] + 1;
      todo.push(next);
    }
  }
  return d;
}

// Shortest distances in cables between every two switches, over usable
// switch-to-switch cables (CAs do not forward). Indexed by NodeIndex.
class Oracle {
 public:
  explicit Oracle(const Fabric& f) : f_(f), dist_(f.node_count()) {
    for (uint32_t s = 0; s < f.node_count(); ++s) {
      if (!f.node(NodeIndex{s}).is_switch()) continue;
      const uint32_t source[] = {s};
      dist_[s] = switch_distances(f, source);
    }
  }

  uint32_t switch_distance(NodeIndex a, NodeIndex b) const { return dist_[a.value][b.value]; }

  // Cables on a shortest path from endpoint port `src` to endpoint port `dst`.
  uint32_t cables(PortRef src, PortRef dst) const {
    if (!cable_up(f_, src.node, src.port) || !cable_up(f_, dst.node, dst.port)) return kFar;
    const Port& s = f_.node(src.node).port(src.port);
    const Port& d = f_.node(dst.node).port(dst.port);
    if (s.remote_node == dst.node && s.remote_port == dst.port) return 1;  // back to back
    if (!f_.node(s.remote_node).is_switch() || !f_.node(d.remote_node).is_switch()) return kFar;
    const uint32_t between = switch_distance(s.remote_node, d.remote_node);
    return between == kFar ? kFar : between + 2;
  }

 private:
  const Fabric& f_;
  std::vector<std::vector<uint32_t>> dist_;
};

// Every endpoint port with a LID.
inline std::vector<PortRef> endpoint_ports(const Fabric& f) {
  std::vector<PortRef> out;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (node.port(static_cast<uint8_t>(p)).base_lid.value != 0) out.push_back({NodeIndex{n}, static_cast<uint8_t>(p)});
    }
  }
  return out;
}

// AsideRunners that keep a test deterministic: the job runs at once, when
// handed over (a runner as quick as can be), or only when waited for (as
// slow as can be: the caller does all it does before the job starts).
inline AsideRunner at_once_runner() {
  return [](std::function<void()> job) {
    job();
    return std::function<void()>([] {});
  };
}
inline AsideRunner when_waited_runner() {
  return [](std::function<void()> job) {
    auto held = std::make_shared<std::function<void()>>(std::move(job));
    return std::function<void()>([held] {
      if (*held) std::exchange(*held, nullptr)();
    });
  };
}

inline UnicastTables route_minhop(const RoutingGraph& graph) {
  MinHopEngine engine;
  UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  must(validate_tables(graph, tables));
  return tables;
}

// What tracing every endpoint pair (all LIDs) found against the oracle.
struct PairReport {
  uint64_t pairs = 0;
  uint64_t reachable = 0;     // by the oracle
  uint64_t delivered = 0;     // to the right port on a shortest path
  uint64_t wrong = 0;         // anything else
  std::string first_wrong;
};

inline PairReport trace_all_pairs(const Fabric& f, const UnicastTables& tables) {
  PairReport r;
  const Oracle oracle(f);
  const RouteTracer tracer(f, tables.lfts);
  const std::vector<PortRef> ends = endpoint_ports(f);
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (src == dst) continue;
      const Port& dp = f.node(dst.node).port(dst.port);
      const uint32_t expected = oracle.cables(src, dst);
      for (uint32_t i = 0; i < (1u << dp.lmc); ++i) {
        const Lid dlid{static_cast<uint16_t>(dp.base_lid.value + i)};
        ++r.pairs;
        const Trace t = tracer.trace(src, dlid);
        bool ok;
        if (expected == kFar) {
          ok = t.outcome == TraceOutcome::unreachable;
        } else {
          ++r.reachable;
          ok = t.outcome == TraceOutcome::delivered && t.destination == dst && t.cables == expected;
          r.delivered += ok;
        }
        if (!ok) {
          if (r.wrong++ == 0) {
            r.first_wrong = fmt::format("{} port {} -> lid {}: {} after {} cables (shortest {}) {}",
                                        f.node(src.node).name, src.port, dlid, trace_outcome_name(t.outcome),
                                        t.cables, expected, t.reason);
          }
        }
      }
    }
  }
  return r;
}

// Routes (endpoint pairs, base LIDs) per direction of every usable
// switch-to-switch cable, keyed by (switch node, out-port), by tracing every
// pair; idle cables are listed with 0. Every pair must be delivered.
using LinkLoads = std::map<std::pair<uint32_t, uint8_t>, uint64_t>;
inline LinkLoads traced_link_loads(const Fabric& f, LftSet lfts) {
  LinkLoads load;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (cable_up(f, NodeIndex{n}, p) && f.node(node.port(static_cast<uint8_t>(p)).remote_node).is_switch()) {
        load[{n, static_cast<uint8_t>(p)}] = 0;
      }
    }
  }
  const RouteTracer tracer(f, lfts);
  const std::vector<PortRef> ends = endpoint_ports(f);
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (src == dst) continue;
      const Trace t = tracer.trace(src, f.node(dst.node).port(dst.port).base_lid);
      REQUIRE(t.outcome == TraceOutcome::delivered);
      // Switch-to-switch cables: every hop's out-port but the last switch's.
      for (size_t h = 0; h + 1 < t.hops.size(); ++h) ++load.at({t.hops[h].node.value, t.hops[h].out_port});
    }
  }
  return load;
}

// For every pair of endpoints `cables` apart, the paths to all `lids` LIDs
// of the destination are delivered and share no switch-to-switch cable.
// Returns how many such pairs there are.
inline uint64_t check_far_paths_disjoint(const Fabric& f, const UnicastTables& tables, uint32_t cables_apart,
                                         uint32_t lids) {
  const RouteTracer tracer(f, tables.lfts);
  const Oracle oracle(f);
  const std::vector<PortRef> ends = endpoint_ports(f);
  uint64_t far_pairs = 0;
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (oracle.cables(src, dst) != cables_apart) continue;
      ++far_pairs;
      std::set<std::pair<uint32_t, uint8_t>> cables;
      size_t hops = 0;
      const Port& dp = f.node(dst.node).port(dst.port);
      for (uint32_t i = 0; i < lids; ++i) {
        const Trace t = tracer.trace(src, Lid{static_cast<uint16_t>(dp.base_lid.value + i)});
        REQUIRE(t.outcome == TraceOutcome::delivered);
        for (size_t h = 0; h + 1 < t.hops.size(); ++h) {
          cables.insert({t.hops[h].node.value, t.hops[h].out_port});
          ++hops;
        }
      }
      INFO(f.node(src.node).name << " -> " << f.node(dst.node).name);
      REQUIRE(cables.size() == hops);
    }
  }
  return far_pairs;
}

}  // namespace ibsm::routing::testing
