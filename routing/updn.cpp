#include "routing/updn.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "routing/balanced_routes.h"
#include "routing/updown_paths.h"

namespace ibsm::routing {

namespace {

// Candidates for the central root examined by full searches.
constexpr size_t kCenterCandidates = 16;

// Hop distances from `sources` over the switch graph (kUnreachable where none leads).
std::vector<uint32_t> distances_from(const RoutingGraph& graph, std::span<const SwitchId> sources) {
  std::vector<uint32_t> dist(graph.switch_count(), kUnreachable);
  std::vector<SwitchId> queue;
  queue.reserve(graph.switch_count());
  for (SwitchId s : sources) {
    if (dist[s] == kUnreachable) {
      dist[s] = 0;
      queue.push_back(s);
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const SwitchId at = queue[head];
    for (uint32_t e = graph.edge_begin(at); e < graph.edge_begin(at + 1); ++e) {
      const SwitchId next = graph.edge_target(e);
      if (dist[next] != kUnreachable) continue;
      dist[next] = dist[at] + 1;
      queue.push_back(next);
    }
  }
  return dist;
}

// Connected components of the switch graph: an id per switch, 0.. in switch order.
std::vector<uint32_t> components(const RoutingGraph& graph, uint32_t& count) {
  std::vector<uint32_t> comp(graph.switch_count(), kUnreachable);
  std::vector<SwitchId> queue;
  count = 0;
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    if (comp[s] != kUnreachable) continue;
    comp[s] = count;
    queue.assign(1, s);
    for (size_t head = 0; head < queue.size(); ++head) {
      const SwitchId at = queue[head];
      for (uint32_t e = graph.edge_begin(at); e < graph.edge_begin(at + 1); ++e) {
        const SwitchId next = graph.edge_target(e);
        if (comp[next] != kUnreachable) continue;
        comp[next] = count;
        queue.push_back(next);
      }
    }
    ++count;
  }
  return comp;
}

// Whether an endpoint (a CA or router port) hangs off the switch by a usable
// cable, LID or not: root finding looks at the cabling, not at the LIDs.
std::vector<uint8_t> switches_with_cas(const RoutingGraph& graph) {
  const Fabric& fabric = graph.fabric();
  std::vector<uint8_t> has(graph.switch_count(), 0);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const NodeIndex node = graph.node_of(s);
    const Node& nd = fabric.node(node);
    for (unsigned p = 1; p <= nd.num_ports && !has[s]; ++p) {
      const PortRef here{node, static_cast<uint8_t>(p)};
      if (!cable_usable(fabric, here)) continue;
      has[s] = !fabric.node(nd.port(here.port).remote_node).is_switch();
    }
  }
  return has;
}

Guid guid_of(const RoutingGraph& graph, SwitchId s) { return graph.fabric().node(graph.node_of(s)).node_guid; }

// The most central switch of each component (see find_updn_roots).
class CenterFinder {
 public:
  explicit CenterFinder(const RoutingGraph& graph) : graph_(graph), has_ca_(switches_with_cas(graph)) {
    comp_ = components(graph, comp_count_);
  }

  std::vector<SwitchId> centers() {
    std::vector<SwitchId> out;
    std::vector<uint8_t> done(comp_count_, 0);
    for (SwitchId s = 0; s < graph_.switch_count(); ++s) {
      if (done[comp_[s]]) continue;
      done[comp_[s]] = 1;
      out.push_back(center_of(s));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  const std::vector<uint32_t>& comp() const { return comp_; }
  uint32_t comp_count() const { return comp_count_; }
  const std::vector<uint8_t>& has_ca() const { return has_ca_; }

 private:
  // The farthest switch (ties: the lowest id) in a distance vector.
  static SwitchId farthest(const std::vector<uint32_t>& dist, SwitchId fallback) {
    SwitchId best = fallback;
    for (SwitchId s = 0; s < dist.size(); ++s) {
      if (dist[s] != kUnreachable && dist[s] > dist[best]) best = s;
    }
    return best;
  }

  // Double sweep from `start`'s component: a, the farthest from start; b,
  // the farthest from a; candidates halfway between them on a shortest
  // path. Each candidate is then measured against the switches with CAs
  // (all switches when none has one).
  SwitchId center_of(SwitchId start) {
    const SwitchId one[1] = {start};
    const SwitchId a = farthest(distances_from(graph_, one), start);
    const SwitchId from_a[1] = {a};
    const std::vector<uint32_t> da = distances_from(graph_, from_a);
    const SwitchId b = farthest(da, a);
    const SwitchId from_b[1] = {b};
    const std::vector<uint32_t> db = distances_from(graph_, from_b);
    const uint32_t span = da[b];
    std::vector<SwitchId> middle;
    for (SwitchId s = 0; s < graph_.switch_count(); ++s) {
      if (da[s] == span / 2 && db[s] == span - span / 2) middle.push_back(s);
    }
    std::sort(middle.begin(), middle.end(),
              [&](SwitchId x, SwitchId y) { return guid_of(graph_, x).value < guid_of(graph_, y).value; });
    if (middle.size() > kCenterCandidates) middle.resize(kCenterCandidates);

    bool any_ca = false;
    for (SwitchId s = 0; s < graph_.switch_count(); ++s) any_ca = any_ca || (comp_[s] == comp_[start] && has_ca_[s]);
    std::tuple<uint32_t, uint64_t, uint64_t> best{kUnreachable, 0, 0};
    SwitchId chosen = middle.front();
    for (SwitchId c : middle) {
      const SwitchId from_c[1] = {c};
      const std::vector<uint32_t> dc = distances_from(graph_, from_c);
      uint32_t ecc = 0;
      uint64_t total = 0;
      for (SwitchId s = 0; s < graph_.switch_count(); ++s) {
        if (dc[s] == kUnreachable || (any_ca && !has_ca_[s])) continue;
        ecc = std::max(ecc, dc[s]);
        total += dc[s];
      }
      const std::tuple<uint32_t, uint64_t, uint64_t> key{ecc, total, guid_of(graph_, c).value};
      if (key < best) {
        best = key;
        chosen = c;
      }
    }
    return chosen;
  }

  const RoutingGraph& graph_;
  std::vector<uint8_t> has_ca_;
  std::vector<uint32_t> comp_;
  uint32_t comp_count_ = 0;
};

// Orients every edge toward the lower key: up when key(target) < key(source).
template <typename Key>
std::vector<uint8_t> orient(const RoutingGraph& graph, Key&& key) {
  std::vector<uint8_t> up(graph.edge_count(), 0);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const auto here = key(s);
    for (uint32_t e = graph.edge_begin(s); e < graph.edge_begin(s + 1); ++e) up[e] = key(graph.edge_target(e)) < here;
  }
  return up;
}

std::string describe_switch(const RoutingGraph& graph, SwitchId s) {
  const Node& node = graph.fabric().node(graph.node_of(s));
  return node.name.empty() ? fmt::format("{}", node.node_guid) : fmt::format("{} ({})", node.node_guid, node.name);
}

std::string describe_roots(const RoutingGraph& graph, std::span<const SwitchId> roots) {
  constexpr size_t kShown = 8;
  std::string out;
  for (size_t i = 0; i < roots.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += fmt::format("{}", guid_of(graph, roots[i]));
  }
  if (roots.size() > kShown) out += fmt::format(" and {} more", roots.size() - kShown);
  return out;
}

}  // namespace

std::vector<SwitchId> find_center_roots(const RoutingGraph& graph) { return CenterFinder(graph).centers(); }

std::vector<SwitchId> find_updn_roots(const RoutingGraph& graph) {
  CenterFinder finder(graph);
  const std::vector<uint8_t>& has_ca = finder.has_ca();
  std::vector<SwitchId> ca_switches;
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    if (has_ca[s]) ca_switches.push_back(s);
  }
  const std::vector<uint32_t> from_cas = distances_from(graph, ca_switches);

  // Per component, the greatest distance from the switches with CAs (0 when
  // every switch has CAs, kUnreachable when none has).
  const std::vector<uint32_t>& comp = finder.comp();
  std::vector<uint32_t> farthest(finder.comp_count(), 0);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    uint32_t& f = farthest[comp[s]];
    if (from_cas[s] == kUnreachable) {
      f = kUnreachable;
    } else if (f != kUnreachable) {
      f = std::max(f, from_cas[s]);
    }
  }
  std::vector<SwitchId> roots;
  bool need_centers = false;
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const uint32_t f = farthest[comp[s]];
    if (f == 0 || f == kUnreachable) {
      need_centers = true;
      continue;
    }
    if (from_cas[s] == f) roots.push_back(s);
  }
  if (need_centers) {
    for (SwitchId c : finder.centers()) {
      const uint32_t f = farthest[comp[c]];
      if (f == 0 || f == kUnreachable) roots.push_back(c);
    }
    std::sort(roots.begin(), roots.end());
  }
  return roots;
}

Result<std::vector<SwitchId>> switches_by_guid(const RoutingGraph& graph, std::span<const Guid> guids) {
  const Fabric& fabric = graph.fabric();
  std::vector<SwitchId> out;
  out.reserve(guids.size());
  for (const Guid& g : guids) {
    const std::optional<NodeIndex> node = fabric.find_by_node_guid(g);
    if (!node) return not_found_error(fmt::format("root guid {} is no node of the fabric", g));
    const Node& nd = fabric.node(*node);
    if (!nd.is_switch()) {
      return invalid_argument_error(fmt::format("root guid {} is {} '{}', not a switch", g,
                                                nd.type == NodeType::router ? "a router" : "a ca", nd.name));
    }
    out.push_back(graph.switch_of(*node));
  }
  return out;
}

UpDownOrientation updn_orientation(const RoutingGraph& graph, std::span<const SwitchId> roots) {
  UpDownOrientation o;
  o.roots.assign(roots.begin(), roots.end());
  std::sort(o.roots.begin(), o.roots.end());
  o.roots.erase(std::unique(o.roots.begin(), o.roots.end()), o.roots.end());
  o.rank = distances_from(graph, o.roots);
  if (std::find(o.rank.begin(), o.rank.end(), kUnreachable) != o.rank.end()) {
    // Components the given roots do not reach get their automatic roots.
    for (SwitchId r : find_updn_roots(graph)) {
      if (o.rank[r] == kUnreachable) o.roots.push_back(r);
    }
    std::sort(o.roots.begin(), o.roots.end());
    o.rank = distances_from(graph, o.roots);
  }
  o.up = orient(graph, [&](SwitchId s) { return std::make_pair(o.rank[s], guid_of(graph, s).value); });
  return o;
}

UpDownOrientation dnup_orientation(const RoutingGraph& graph) {
  const std::vector<uint8_t> has_ca = switches_with_cas(graph);
  UpDownOrientation o;
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    if (has_ca[s]) o.roots.push_back(s);
  }
  o.rank = distances_from(graph, o.roots);
  for (uint32_t& r : o.rank) {
    if (r == kUnreachable) r = 0;  // a component without CAs: the tie-break alone orders it
  }
  const UpDownOrientation tie = updn_orientation(graph, find_updn_roots(graph));
  // Up leads away from the CAs: toward a higher rank, so the key falls as the rank grows.
  o.up = orient(graph, [&](SwitchId s) {
    return std::make_tuple(kUnreachable - o.rank[s], tie.rank[s], guid_of(graph, s).value);
  });
  return o;
}

Result<UnicastTables> route_up_down(const RoutingInput& input, const UpDownOrientation& orientation,
                                    std::string_view engine) {
  const RoutingGraph& graph = input.graph;
  UnicastTables tables = UnicastTables::unrouted(graph);
  const uint32_t switches = graph.switch_count();
  if (switches == 0) return tables;

  uint32_t comp_count = 0;
  const std::vector<uint32_t> comp = components(graph, comp_count);
  // Switches with endpoint LIDs: their pairs must all have legal paths.
  std::vector<uint8_t> has_ca(switches, 0);
  std::vector<SwitchId> ca_switches;
  for (SwitchId s = 0; s < switches; ++s) {
    for (const Destination& d : graph.destinations_of(s)) has_ca[s] = has_ca[s] || d.port != 0;
    if (has_ca[s]) ca_switches.push_back(s);
  }

  UpDownPathBatch paths(graph, orientation.up);
  std::optional<UpDownPathBatch> next;  // searched beside the routing, with a runner
  if (input.aside) next.emplace(graph, orientation.up);
  UpDownPathBatch* batches[2] = {&paths, next ? &*next : nullptr};
  std::vector<uint64_t> batch_of_comp(comp_count, 0);   // the batch's destinations, by component
  std::vector<uint64_t> ca_batch_of_comp(comp_count, 0);  // those with CAs
  uint64_t switch_pairs_without_path = 0;
  // One search at a time (PathSearch), so the counts below need no lock.
  const auto search = [&](uint32_t b, SwitchId first, uint32_t count) -> Status {
    UpDownPathBatch& searched = *batches[b];
    searched.search(first, count);
    for (uint32_t j = 0; j < count; ++j) {
      batch_of_comp[comp[first + j]] |= uint64_t{1} << j;
      if (has_ca[first + j]) ca_batch_of_comp[comp[first + j]] |= uint64_t{1} << j;
    }
    Status status;
    for (SwitchId s : ca_switches) {
      const uint64_t missing = ca_batch_of_comp[comp[s]] & ~searched.reaches(s);
      if (missing == 0) continue;
      const SwitchId to = first + static_cast<uint32_t>(std::countr_zero(missing));
      status = failed_precondition_error(fmt::format(
          "switches {} and {} both have cas but no up*/down* path from the first to the second "
          "(ranked from {})",
          describe_switch(graph, s), describe_switch(graph, to), describe_roots(graph, orientation.roots)));
      break;
    }
    for (SwitchId s = 0; s < switches; ++s) {
      switch_pairs_without_path += std::popcount(batch_of_comp[comp[s]] & ~searched.reaches(s));
    }
    for (uint32_t j = 0; j < count; ++j) batch_of_comp[comp[first + j]] = ca_batch_of_comp[comp[first + j]] = 0;
    return status;
  };
  auto rounds = route_balanced(graph, PathSearch{{batches[0], batches[1]}, search, input.aside}, tables);
  if (!rounds.ok()) return rounds.status();
  log(input.log, LogLevel::debug, Subsystem::routing, "{}: {}", engine, rounds->summary());
  if (switch_pairs_without_path > 0) {
    log(input.log, LogLevel::info, Subsystem::routing,
        "{}: {} (switch, switch lid) pairs have no up*/down* path and stay unrouted; every switch with cas "
        "reaches every other",
        engine, switch_pairs_without_path);
  }
  return tables;
}

namespace {

uint32_t max_rank(const UpDownOrientation& o) {
  uint32_t m = 0;
  for (uint32_t r : o.rank) m = std::max(m, r);
  return m;
}

// updn with automatic roots: the switches farthest from the CAs, or when
// they leave two switches with CAs without a legal path (a fat tree with
// failed cables), one central switch per component, which always works.
Result<UnicastTables> route_automatic(const RoutingInput& input, std::string_view engine, UpDownOrientation& used) {
  const RoutingGraph& graph = input.graph;
  UpDownOrientation o = updn_orientation(graph, find_updn_roots(graph));
  Result<UnicastTables> tables = route_up_down(input, o, engine);
  if (tables.ok()) {
    used = std::move(o);
    return tables;
  }
  const std::vector<SwitchId> centers = find_center_roots(graph);
  if (o.roots == centers) return tables;
  log(input.log, LogLevel::info, Subsystem::routing, "{}; retrying with one central root per component",
      tables.status().message());
  o = updn_orientation(graph, centers);
  tables = route_up_down(input, o, engine);
  if (tables.ok()) used = std::move(o);
  return tables;
}

}  // namespace

Result<UnicastTables> UpDnEngine::compute(const RoutingInput& input) {
  const RoutingGraph& graph = input.graph;
  if (graph.switch_count() == 0) return failed_precondition_error("updn: the fabric has no switch to route");

  UpDownOrientation o;
  const bool automatic = options_.roots.empty();
  if (!automatic) {
    Result<std::vector<SwitchId>> given = switches_by_guid(graph, options_.roots);
    if (!given.ok()) return Status(given.status().code(), fmt::format("updn: {}", given.status().message()));
    o = updn_orientation(graph, *given);
  }
  Result<UnicastTables> tables = automatic ? route_automatic(input, kUpDnName, o) : route_up_down(input, o, kUpDnName);
  if (!tables.ok()) return tables;
  log(input.log, LogLevel::info, Subsystem::routing, "updn: {} {} root(s) {}, max rank {}",
      automatic ? "automatic" : "given", o.roots.size(), describe_roots(graph, o.roots), max_rank(o));
  orientation_ = std::move(o);
  return tables;
}

Result<UnicastTables> DnUpEngine::compute(const RoutingInput& input) {
  const RoutingGraph& graph = input.graph;
  if (graph.switch_count() == 0) return failed_precondition_error("dnup: the fabric has no switch to route");
  UpDownOrientation o = dnup_orientation(graph);
  Result<UnicastTables> tables = route_up_down(input, o, kDnUpName);
  if (!tables.ok()) {
    // Several local tops of the ranking from the CAs that not every switch
    // with CAs reaches: no dnup ranking works, updn's always does.
    log(input.log, LogLevel::info, Subsystem::routing, "{}; ranking as updn does instead", tables.status().message());
    tables = route_automatic(input, kDnUpName, o);
    if (!tables.ok()) return tables;
  }
  log(input.log, LogLevel::info, Subsystem::routing, "dnup: {} switch(es) at rank 0, max rank {}", o.roots.size(),
      max_rank(o));
  orientation_ = std::move(o);
  return tables;
}

}  // namespace ibsm::routing
