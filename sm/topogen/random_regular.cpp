// Random regular switch graphs.
//
// Start from a circulant graph (switch i joined to i±1..i±degree/2, and to
// i+n/2 for an odd degree), which is regular, simple and connected, then
// apply 10 * cables degree-preserving double-edge swaps drawn from the seed,
// rejecting any swap that would make a self-loop or a parallel cable. If the
// result is not connected, keep swapping from the same stream (a fixed number
// of rounds), so the outcome still depends only on the parameters and seed.
// Degree 2 is a ring in a random order instead: a random 2-regular graph is
// almost never one cycle. Ports follow the sorted cable list.
#include <algorithm>
#include <numeric>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/prng.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {
namespace {

using Edge = std::pair<uint32_t, uint32_t>;  // first < second

Edge make_edge(uint32_t u, uint32_t v) { return u < v ? Edge{u, v} : Edge{v, u}; }
uint64_t key(Edge e) { return (uint64_t{e.first} << 32) | e.second; }

bool connected(uint32_t n, const std::vector<Edge>& edges) {
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  auto root = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  uint32_t components = n;
  for (const Edge& e : edges) {
    const uint32_t a = root(e.first), b = root(e.second);
    if (a != b) {
      parent[a] = b;
      --components;
    }
  }
  return components == 1;
}

std::vector<Edge> circulant(uint32_t n, uint32_t degree) {
  std::vector<Edge> edges;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t d = 1; d <= degree / 2; ++d) edges.push_back(make_edge(i, (i + d) % n));
    if (degree % 2 == 1 && i < n / 2) edges.push_back(make_edge(i, i + n / 2));
  }
  return edges;
}

void shuffle_by_swaps(std::vector<Edge>& edges, Prng& rng, uint64_t swaps) {
  std::unordered_set<uint64_t> present;
  present.reserve(edges.size() * 2);
  for (const Edge& e : edges) present.insert(key(e));
  for (uint64_t s = 0; s < swaps; ++s) {
    const size_t i = rng.below(edges.size());
    const size_t j = rng.below(edges.size());
    if (i == j) continue;
    const auto [a, b] = edges[i];
    auto [c, d] = edges[j];
    if (rng.below(2)) std::swap(c, d);
    // (a,b),(c,d) -> (a,d),(c,b)
    if (a == d || c == b) continue;
    const Edge ad = make_edge(a, d), cb = make_edge(c, b);
    if (present.count(key(ad)) || present.count(key(cb))) continue;
    present.erase(key(edges[i]));
    present.erase(key(edges[j]));
    present.insert(key(ad));
    present.insert(key(cb));
    edges[i] = ad;
    edges[j] = cb;
  }
}

}  // namespace

Result<SizeEstimate> estimate(const RandomRegularParams& p) {
  IBSM_RETURN_IF_ERROR(check_at_least("switches", p.switches, 2));
  IBSM_RETURN_IF_ERROR(check_at_least("degree", p.degree, 1));
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  if (p.degree >= p.switches) {
    return invalid_argument_error(
        fmt::format("degree {} needs more than {} switches (no self-loops or parallel cables)", p.degree, p.switches));
  }
  if (uint64_t{p.switches} * p.degree % 2 != 0) {
    return invalid_argument_error(
        fmt::format("switches * degree must be even ({} * {} is odd): every cable has two ends", p.switches, p.degree));
  }
  if (p.degree == 1 && p.switches != 2) {
    return invalid_argument_error("degree 1 is connected only with 2 switches");
  }
  const uint64_t ports = uint64_t{p.hosts_per_switch} + p.degree;
  IBSM_RETURN_IF_ERROR(check_switch_ports("random graph switch", ports));

  SizeEstimate size;
  size.switches = p.switches;
  size.cas = mul_sat(p.switches, p.hosts_per_switch);
  size.ca_ports = size.cas;
  size.switch_links = uint64_t{p.switches} * p.degree / 2;
  size.links = add_sat(size.cas, size.switch_links);
  size.switch_ports = mul_sat(p.switches, ports);
  IBSM_RETURN_IF_ERROR(check_size(size));
  return size;
}

Result<Fabric> random_regular(const RandomRegularParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  const uint32_t n = p.switches;
  Prng rng(p.seed);

  std::vector<Edge> edges;
  if (p.degree == 2) {
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    for (uint32_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
    for (uint32_t i = 0; i < n; ++i) edges.push_back(make_edge(order[i], order[(i + 1) % n]));
  } else {
    edges = circulant(n, p.degree);
    constexpr int kRounds = 64;
    int round = 0;
    do {
      shuffle_by_swaps(edges, rng, 10 * edges.size());
    } while (!connected(n, edges) && ++round < kRounds);
    if (round == kRounds) {
      return failed_precondition_error(fmt::format(
          "no connected random {}-regular graph on {} switches after {} rounds of swaps (seed {})", p.degree, n,
          kRounds, p.seed));
    }
  }
  std::sort(edges.begin(), edges.end());

  FabricBuilder b(p.link);
  const unsigned hosts = p.hosts_per_switch;
  std::vector<NodeIndex> switches;
  switches.reserve(n);
  for (uint32_t i = 0; i < n; ++i) switches.push_back(b.add_switch(fmt::format("sw-{}", i), hosts + p.degree));
  for (NodeIndex s : switches) {
    for (unsigned h = 0; h < hosts; ++h) b.connect(b.add_host(), 1, s, 1 + h);
  }
  std::vector<unsigned> next_port(n, hosts + 1);
  for (const Edge& e : edges) {
    b.connect(switches[e.first], next_port[e.first]++, switches[e.second], next_port[e.second]++);
  }
  return std::move(b).finish();
}

}  // namespace ibsm::topogen
