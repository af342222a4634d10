#include "routing/torus_topology.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace ibsm::routing {

namespace {

constexpr uint8_t dim_of(uint8_t dir) { return dir >> 1; }
constexpr uint8_t opposite(uint8_t dir) { return dir ^ 1; }
constexpr unsigned kDirections = 2 * kTorusDims;

// Every switch's distinct neighbour switches, in the order of its first port
// toward each (out-edges are in port order).
struct Neighbours {
  std::vector<uint32_t> begin;  // switch_count() + 1 offsets into list
  std::vector<SwitchId> list;

  explicit Neighbours(const RoutingGraph& graph) {
    begin.push_back(0);
    for (SwitchId v = 0; v < graph.switch_count(); ++v) {
      for (uint32_t e = graph.edge_begin(v); e < graph.edge_begin(v + 1); ++e) {
        const SwitchId w = graph.edge_target(e);
        if (w == v) continue;
        if (std::find(list.begin() + begin.back(), list.end(), w) == list.end()) list.push_back(w);
      }
      begin.push_back(static_cast<uint32_t>(list.size()));
    }
  }
  uint32_t degree(SwitchId v) const { return begin[v + 1] - begin[v]; }
  // The slot of w among v's neighbours, or UINT32_MAX.
  uint32_t slot(SwitchId v, SwitchId w) const {
    for (uint32_t i = begin[v]; i < begin[v + 1]; ++i) {
      if (list[i] == w) return i;
    }
    return UINT32_MAX;
  }
};

// Labels every neighbour slot with a direction, from the origin's labels.
class Labeller {
 public:
  explicit Labeller(const Neighbours& n) : n_(n) {}

  // Fails (returns why) when the labels contradict each other or some
  // cable fits no direction.
  Status run(SwitchId origin, const std::vector<uint8_t>& origin_labels) {
    labels_.assign(n_.list.size(), kNoDirection);
    for (uint32_t i = 0; i < origin_labels.size(); ++i) labels_[n_.begin[origin] + i] = origin_labels[i];
    const uint32_t switches = static_cast<uint32_t>(n_.begin.size() - 1);
    for (uint32_t pass = 0; pass <= switches + 1; ++pass) {
      changed_ = false;
      for (SwitchId v = 0; v < switches; ++v) IBSM_RETURN_IF_ERROR(visit(v));
      if (!changed_) break;
    }
    for (SwitchId v = 0; v < switches; ++v) {
      uint32_t used = 0;
      for (uint32_t i = n_.begin[v]; i < n_.begin[v + 1]; ++i) {
        if (labels_[i] == kNoDirection) return failed_precondition_error("a cable fits no direction");
        if (used & (1u << labels_[i])) return failed_precondition_error("two cables of a switch point the same way");
        used |= 1u << labels_[i];
      }
    }
    return {};
  }
  uint8_t label(SwitchId v, SwitchId w) const {
    const uint32_t i = n_.slot(v, w);
    return i == UINT32_MAX ? kNoDirection : labels_[i];
  }
  const std::vector<uint8_t>& labels() const { return labels_; }

 private:
  Status set(uint32_t slot, uint8_t dir) {
    if (labels_[slot] == dir) return {};
    if (labels_[slot] != kNoDirection) return failed_precondition_error("the directions of the cables contradict each other");
    labels_[slot] = dir;
    changed_ = true;
    return {};
  }

  Status visit(SwitchId v) {
    for (uint32_t i = n_.begin[v]; i < n_.begin[v + 1]; ++i) {
      const uint8_t d = labels_[i];
      if (d == kNoDirection) continue;
      const SwitchId u = n_.list[i];
      IBSM_RETURN_IF_ERROR(set(n_.slot(u, v), opposite(d)));  // the cable's other end
      // Squares: u -> x in e (another dimension): v's neighbour y next to x is v + e.
      for (uint32_t k = n_.begin[u]; k < n_.begin[u + 1]; ++k) {
        const uint8_t e = labels_[k];
        if (e == kNoDirection || dim_of(e) == dim_of(d)) continue;
        const SwitchId x = n_.list[k];
        uint32_t found = UINT32_MAX, count = 0;
        for (uint32_t m = n_.begin[v]; m < n_.begin[v + 1]; ++m) {
          const SwitchId y = n_.list[m];
          if (y == u || y == x || n_.slot(x, y) == UINT32_MAX) continue;
          found = m;
          ++count;
        }
        if (count == 1) IBSM_RETURN_IF_ERROR(set(found, e));
      }
    }
    // Straight on: one cable left, and one way left whose opposite is taken.
    uint32_t unknown = UINT32_MAX, unknowns = 0, used = 0;
    for (uint32_t i = n_.begin[v]; i < n_.begin[v + 1]; ++i) {
      if (labels_[i] == kNoDirection) {
        unknown = i;
        ++unknowns;
      } else {
        used |= 1u << labels_[i];
      }
    }
    if (unknowns != 1) return {};
    uint8_t candidate = kNoDirection;
    uint32_t candidates = 0;
    for (uint8_t dir = 0; dir < kDirections; ++dir) {
      if (!(used & (1u << dir)) && (used & (1u << opposite(dir)))) {
        candidate = dir;
        ++candidates;
      }
    }
    if (candidates == 1) return set(unknown, candidate);
    return {};
  }

  const Neighbours& n_;
  std::vector<uint8_t> labels_;
  bool changed_ = false;
};

// The ways of splitting the origin's m neighbours into at most three
// dimensions of one or two (opposite) neighbours, fewest dimensions first:
// per way, a direction per neighbour. Dimensions are numbered by their
// lowest neighbour (port order), "+" is the lower of a pair.
std::vector<std::vector<uint8_t>> origin_labellings(uint32_t m) {
  std::vector<std::vector<uint8_t>> out;
  std::vector<uint8_t> dir(m, kNoDirection);
  const auto recurse = [&](auto& self, uint8_t dims) -> void {
    uint32_t i = 0;
    while (i < m && dir[i] != kNoDirection) ++i;
    if (i == m) {
      out.push_back(dir);
      return;
    }
    if (dims == kTorusDims) return;
    for (uint32_t j = i + 1; j < m; ++j) {
      if (dir[j] != kNoDirection) continue;
      dir[i] = static_cast<uint8_t>(2 * dims);
      dir[j] = static_cast<uint8_t>(2 * dims + 1);
      self(self, static_cast<uint8_t>(dims + 1));
      dir[j] = kNoDirection;
    }
    dir[i] = static_cast<uint8_t>(2 * dims);
    self(self, static_cast<uint8_t>(dims + 1));
    dir[i] = kNoDirection;
  };
  recurse(recurse, 0);
  const auto dims = [](const std::vector<uint8_t>& d) { return *std::max_element(d.begin(), d.end()) / 2; };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return dims(a) < dims(b); });
  return out;
}

// The shape and coordinates from a full labelling, relative to the origin
// (at 0 in every torus dimension; mesh dimensions shifted to start at 0).
Result<TorusTopology> place(const RoutingGraph& graph, const Neighbours& n, const Labeller& labels, SwitchId origin) {
  const uint32_t switches = graph.switch_count();
  TorusTopology t;
  uint8_t dims = 0;
  for (uint32_t i = n.begin[origin]; i < n.begin[origin + 1]; ++i) {
    dims = std::max<uint8_t>(dims, static_cast<uint8_t>(dim_of(labels.labels()[i]) + 1));
  }
  const auto next = [&](SwitchId v, uint8_t dir) -> SwitchId {
    for (uint32_t i = n.begin[v]; i < n.begin[v + 1]; ++i) {
      if (labels.labels()[i] == dir) return n.list[i];
    }
    return kNoSwitch;
  };
  for (uint8_t d = 0; d < dims; ++d) {
    uint32_t ring = 0, line = 1;
    for (SwitchId v = 0; v < switches; ++v) {
      uint32_t moves = 0;
      SwitchId w = v;
      for (w = next(v, static_cast<uint8_t>(2 * d)); w != kNoSwitch && w != v && moves <= switches;
           w = next(w, static_cast<uint8_t>(2 * d))) {
        ++moves;
      }
      if (moves > switches) return failed_precondition_error("a line of switches never ends");
      if (w == v) {
        if (ring != 0 && ring != moves + 1) return failed_precondition_error("rings of one dimension differ in length");
        ring = moves + 1;
      } else {
        line = std::max(line, moves + 1);
      }
    }
    t.wraps[d] = ring != 0;
    t.radix[d] = ring != 0 ? ring : line;
    if (t.wraps[d] && ring < 3) return failed_precondition_error("a ring of fewer than three switches");
  }
  // Coordinates by a search from the origin.
  std::vector<std::array<int64_t, kTorusDims>> at(switches);
  std::vector<uint8_t> seen(switches, 0);
  std::vector<SwitchId> queue{origin};
  seen[origin] = 1;
  at[origin] = {};
  for (size_t head = 0; head < queue.size(); ++head) {
    const SwitchId v = queue[head];
    for (uint32_t i = n.begin[v]; i < n.begin[v + 1]; ++i) {
      const SwitchId w = n.list[i];
      const uint8_t dir = labels.labels()[i];
      std::array<int64_t, kTorusDims> c = at[v];
      int64_t& x = c[dim_of(dir)];
      x += (dir & 1) ? -1 : 1;
      if (t.wraps[dim_of(dir)]) x = (x + t.radix[dim_of(dir)]) % t.radix[dim_of(dir)];
      if (!seen[w]) {
        seen[w] = 1;
        at[w] = c;
        queue.push_back(w);
      } else if (at[w] != c) {
        return failed_precondition_error("the cables do not lay the switches out on a grid");
      }
    }
  }
  if (queue.size() != switches) return failed_precondition_error("the switches are not all connected");
  for (unsigned d = 0; d < kTorusDims; ++d) {
    if (t.wraps[d]) continue;
    int64_t low = 0, high = 0;
    for (const auto& c : at) {
      low = std::min(low, c[d]);
      high = std::max(high, c[d]);
    }
    if (high - low + 1 > t.radix[d]) t.radix[d] = static_cast<uint32_t>(high - low + 1);
    for (auto& c : at) c[d] -= low;
  }
  t.coord.resize(switches);
  for (SwitchId v = 0; v < switches; ++v) {
    for (unsigned d = 0; d < kTorusDims; ++d) t.coord[v][d] = static_cast<uint32_t>(at[v][d]);
  }
  return t;
}

// Fills `at` and `edge_dir`, checking that no two switches share a place.
Status index(const RoutingGraph& graph, const Labeller& labels, TorusTopology& t) {
  t.at.assign(t.positions(), kNoSwitch);
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    SwitchId& slot = t.at[t.position(t.coord[v])];
    if (slot != kNoSwitch) return failed_precondition_error("two switches at one place of the grid");
    slot = v;
  }
  t.edge_dir.assign(graph.edge_count(), kNoDirection);
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    for (uint32_t e = graph.edge_begin(v); e < graph.edge_begin(v + 1); ++e) {
      t.edge_dir[e] = labels.label(v, graph.edge_target(e));
    }
  }
  return {};
}

std::string node_text(const RoutingGraph& graph, SwitchId v) {
  const Node& node = graph.fabric().node(graph.node_of(v));
  return node.name.empty() ? fmt::format("{}", node.node_guid) : fmt::format("{} ({})", node.node_guid, node.name);
}

Result<TorusTopology> discover_auto(const RoutingGraph& graph, const Neighbours& n) {
  SwitchId origin = kNoSwitch;
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    // Switch ids are in node GUID order: the first of the most connected.
    if (origin == kNoSwitch || n.degree(v) > n.degree(origin)) origin = v;
  }
  if (n.degree(origin) == 0) return failed_precondition_error("no switch-to-switch cables");
  if (n.degree(origin) > kDirections) {
    return failed_precondition_error(fmt::format("switch {} has {} neighbour switches, more than a 3D torus gives", node_text(graph, origin), n.degree(origin)));
  }
  Labeller labels(n);
  Status last;
  for (const std::vector<uint8_t>& way : origin_labellings(n.degree(origin))) {
    last = labels.run(origin, way);
    if (!last.ok()) continue;
    Result<TorusTopology> t = place(graph, n, labels, origin);
    if (!t.ok()) {
      last = t.status();
      continue;
    }
    last = index(graph, labels, *t);
    if (last.ok()) return t;
  }
  return failed_precondition_error(fmt::format("not a torus or mesh of 1 to 3 dimensions seen from switch {}: {}",
                                               node_text(graph, origin), last.message()));
}

// The discovered dimensions mapped onto the config's x, y, z by the seed's
// links, and the coordinates moved by the seed's datelines.
Result<TorusTopology> fit_seed(const RoutingGraph& graph, const TorusConfig& config, const TorusSeed& seed,
                               const Neighbours& n, SwitchId origin) {
  Labeller labels(n);
  Status last = failed_precondition_error("no way of pairing its cables fits");
  for (const std::vector<uint8_t>& way : origin_labellings(n.degree(origin))) {
    Status s = labels.run(origin, way);
    if (!s.ok()) {
      last = s;
      continue;
    }
    Result<TorusTopology> found = place(graph, n, labels, origin);
    if (!found.ok()) {
      last = found.status();
      continue;
    }
    // map[k]: the config dimension of discovered dimension k; flip[k]: its "+" is the config's "-".
    std::array<int, kTorusDims> map{-1, -1, -1};
    std::array<bool, kTorusDims> flip{};
    bool fits = true;
    for (const TorusSeedLink& link : seed.links) {
      const std::optional<NodeIndex> to = graph.fabric().find_by_node_guid(link.to);
      const SwitchId w = to ? graph.switch_of(*to) : kNoSwitch;
      const uint8_t dir = w == kNoSwitch ? kNoDirection : labels.label(origin, w);
      if (dir == kNoDirection) {
        fits = false;
        break;
      }
      const uint8_t k = dim_of(dir);
      const bool f = ((dir & 1) != 0) == link.positive;
      if ((map[k] != -1 && (map[k] != link.dim || flip[k] != f))) {
        fits = false;
        break;
      }
      map[k] = link.dim;
      flip[k] = f;
    }
    // Dimensions the seed says nothing of take the config's free ones in order.
    for (unsigned k = 0; k < kTorusDims && fits; ++k) {
      if (found->radix[k] <= 1 || map[k] != -1) continue;
      for (unsigned c = 0; c < kTorusDims; ++c) {
        if (config.radix[c] > 1 && std::find(map.begin(), map.end(), static_cast<int>(c)) == map.end()) {
          map[k] = static_cast<int>(c);
          break;
        }
      }
      fits = map[k] != -1;
    }
    for (unsigned k = 0; k < kTorusDims && fits; ++k) {
      if (map[k] == -1) continue;
      const unsigned c = static_cast<unsigned>(map[k]);
      // A ring found is the config's ring; a line (a mesh, or rings all
      // broken by failures) may be shorter than its radix.
      fits = found->wraps[k] ? config.wraps[c] && found->radix[k] == config.radix[c]
                             : found->radix[k] <= config.radix[c];
    }
    for (unsigned c = 0; c < kTorusDims && fits; ++c) {
      if (config.radix[c] > 1) fits = std::find(map.begin(), map.end(), static_cast<int>(c)) != map.end();
    }
    if (!fits) {
      last = failed_precondition_error("the seed's links do not fit the torus found, or its radices differ from the config's");
      continue;
    }
    TorusTopology t;
    t.radix = config.radix;
    t.wraps = config.wraps;
    t.coord.resize(graph.switch_count());
    for (SwitchId v = 0; v < graph.switch_count(); ++v) {
      std::array<uint32_t, kTorusDims> c{};
      for (unsigned k = 0; k < kTorusDims; ++k) {
        if (map[k] == -1) continue;
        const unsigned cd = static_cast<unsigned>(map[k]);
        const int64_t r = config.radix[cd];
        int64_t x = found->coord[v][k];
        if (config.wraps[cd]) {
          // Relative to the origin, turned, then the dateline's move. A ring
          // found has the origin at 0; a ring broken into a line starts at
          // the line's end instead, so the origin's place is taken off.
          x -= found->coord[origin][k];
          if (flip[k]) x = -x;
          x = ((x - seed.dateline[cd]) % r + r) % r;
        } else if (flip[k]) {
          x = found->radix[k] - 1 - x;
        }
        c[cd] = static_cast<uint32_t>(x);
      }
      t.coord[v] = c;
    }
    // Directions in the config's terms.
    IBSM_RETURN_IF_ERROR(index(graph, labels, t));
    for (uint8_t& dir : t.edge_dir) {
      if (dir == kNoDirection) continue;
      const uint8_t k = dim_of(dir);
      dir = static_cast<uint8_t>(2 * map[k] + ((dir & 1) ^ (flip[k] ? 1 : 0)));
    }
    return t;
  }
  return last;
}

}  // namespace

TorusMemory remember_torus(const RoutingGraph& graph, const TorusTopology& t) {
  TorusMemory m;
  m.radix = t.radix;
  m.wraps = t.wraps;
  m.seed = t.seed;
  m.coord.reserve(graph.switch_count());
  for (SwitchId v = 0; v < graph.switch_count() && v < t.coord.size(); ++v) {
    m.coord.emplace_back(graph.fabric().node(graph.node_of(v)).node_guid, t.coord[v]);
  }
  std::sort(m.coord.begin(), m.coord.end());
  return m;
}

std::optional<TorusTopology> recall_torus(const RoutingGraph& graph, const TorusMemory& memory) {
  if (memory.empty()) return std::nullopt;
  TorusTopology t;
  t.radix = memory.radix;
  t.wraps = memory.wraps;
  t.seed = memory.seed;
  t.coord.resize(graph.switch_count());
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    const Guid guid = graph.fabric().node(graph.node_of(v)).node_guid;
    const auto it = std::lower_bound(memory.coord.begin(), memory.coord.end(), guid,
                                     [](const auto& entry, Guid g) { return entry.first < g; });
    if (it == memory.coord.end() || it->first != guid) return std::nullopt;  // a switch it never saw
    t.coord[v] = it->second;
  }
  t.at.assign(t.positions(), kNoSwitch);
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    SwitchId& slot = t.at[t.position(t.coord[v])];
    if (slot != kNoSwitch) return std::nullopt;
    slot = v;
  }
  // Each cable's direction: the one dimension its ends differ in, by one
  // step "+" or "-" (round the ring where it wraps).
  t.edge_dir.assign(graph.edge_count(), kNoDirection);
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    for (uint32_t e = graph.edge_begin(v); e < graph.edge_begin(v + 1); ++e) {
      const SwitchId w = graph.edge_target(e);
      if (w == v) continue;  // a cable back to the same switch: no direction, as discover_torus
      uint8_t dir = kNoDirection;
      unsigned differing = 0;
      for (uint8_t d = 0; d < kTorusDims; ++d) {
        const uint32_t a = t.coord[v][d], b = t.coord[w][d], r = t.radix[d];
        if (a == b) continue;
        ++differing;
        if (b == a + 1 || (t.wraps[d] && a + 1 == r && b == 0)) {
          dir = static_cast<uint8_t>(2 * d);
        } else if (a == b + 1 || (t.wraps[d] && b + 1 == r && a == 0)) {
          dir = static_cast<uint8_t>(2 * d + 1);
        }
      }
      if (differing != 1 || dir == kNoDirection) return std::nullopt;  // a cable the torus never had
      t.edge_dir[e] = dir;
    }
  }
  return t;
}

std::string TorusTopology::shape() const {
  std::string dims, kinds;
  unsigned wrapped = 0, used = 0;
  for (unsigned d = 0; d < kTorusDims; ++d) {
    if (radix[d] <= 1) continue;
    ++used;
    wrapped += wraps[d] ? 1 : 0;
  }
  for (unsigned d = 0; d < kTorusDims; ++d) {
    if (radix[d] <= 1) continue;
    if (!dims.empty()) dims += "x";
    dims += wrapped != 0 && wrapped != used ? fmt::format("{}{}", radix[d], wraps[d] ? 't' : 'm') : fmt::format("{}", radix[d]);
  }
  return fmt::format("{} {}", dims, wrapped == used ? "torus" : wrapped == 0 ? "mesh" : "torus-mesh");
}

Result<TorusTopology> discover_torus(const RoutingGraph& graph, const TorusConfig* config) {
  if (graph.switch_count() == 0) return failed_precondition_error("no switches");
  const Neighbours n(graph);
  if (config == nullptr || config->seeds.empty()) {
    Result<TorusTopology> t = discover_auto(graph, n);
    if (!t.ok() || config == nullptr) return t;
    // A config without seeds: its radices must be the ones found.
    for (unsigned d = 0; d < kTorusDims; ++d) {
      if (t->radix[d] != config->radix[d] || t->wraps[d] != config->wraps[d]) {
        return failed_precondition_error(fmt::format("found a {}, not the torus the config describes (and it has no seed)", t->shape()));
      }
    }
    return t;
  }
  std::string why;
  for (size_t s = 0; s < config->seeds.size(); ++s) {
    const TorusSeed& seed = config->seeds[s];
    const std::optional<NodeIndex> node = graph.fabric().find_by_node_guid(seed.origin());
    const SwitchId origin = node ? graph.switch_of(*node) : kNoSwitch;
    if (origin == kNoSwitch) {
      why += fmt::format("; seed {}: no switch {}", s + 1, seed.origin());
      continue;
    }
    Result<TorusTopology> t = fit_seed(graph, *config, seed, n, origin);
    if (t.ok()) {
      t->seed = static_cast<uint32_t>(s + 1);
      return t;
    }
    why += fmt::format("; seed {}: {}", s + 1, t.status().message());
  }
  return failed_precondition_error(fmt::format("no seed of the torus config fits the fabric{}", why));
}

}  // namespace ibsm::routing
