// Dragonfly: fully connected groups of routers, groups joined by global cables.
//
// Global wiring, balanced over group pairs: one "round" cables every pair of
// groups once (for each offset d = 1..(g-1)/2 group i to group i+d, and for an
// even g group i to i+g/2), using g-1 global ports per group. Full rounds
// repeat while they fit; the remaining R < g-1 ports per group take offsets
// 1..R/2, plus the g/2 offset when R is odd and g even (with R odd and g odd
// one port per group stays free). Inside a group, global cables take the
// routers' global ports in order: router 0's first, then router 1's, ...
#include <fmt/format.h>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {
namespace {

uint64_t global_ports_per_group(const DragonflyParams& p) { return uint64_t{p.a} * p.h; }

// Calls cable(group_x, group_y) for every global cable, in a fixed order.
template <typename F>
void for_each_global_cable(const DragonflyParams& p, F cable) {
  const uint64_t g = p.g;
  if (g < 2) return;
  const uint64_t ports = global_ports_per_group(p);
  const uint64_t rounds = ports / (g - 1);
  const uint64_t rest = ports % (g - 1);
  auto offset = [&](uint64_t d) {
    if (2 * d == g) {
      for (uint64_t i = 0; i < g / 2; ++i) cable(i, i + d);
    } else {
      for (uint64_t i = 0; i < g; ++i) cable(i, (i + d) % g);
    }
  };
  for (uint64_t r = 0; r < rounds; ++r) {
    for (uint64_t d = 1; d <= g / 2; ++d) offset(d);
  }
  for (uint64_t d = 1; d <= rest / 2; ++d) offset(d);
  if (rest % 2 == 1 && g % 2 == 0) offset(g / 2);
}

}  // namespace

Result<SizeEstimate> estimate(const DragonflyParams& p) {
  IBSM_RETURN_IF_ERROR(check_at_least("a (routers per group)", p.a, 1));
  IBSM_RETURN_IF_ERROR(check_at_least("g (groups)", p.g, 1));
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  const uint64_t ports = uint64_t{p.p} + (p.a - 1) + p.h;
  IBSM_RETURN_IF_ERROR(check_switch_ports("dragonfly router", ports));
  // The wiring above starts with the ring of offset 1 (two ports per group)
  // or, for two groups, one cable: that is what keeps the groups connected.
  const uint64_t needed = p.g > 2 ? 2 : p.g == 2 ? 1 : 0;
  if (global_ports_per_group(p) < needed) {
    return invalid_argument_error(fmt::format(
        "a dragonfly of {} groups needs a*h >= {} global ports per group to be connected (a={} h={})", p.g, needed,
        p.a, p.h));
  }

  SizeEstimate size;
  size.switches = mul_sat(p.a, p.g);
  size.cas = mul_sat(size.switches, p.p);
  size.ca_ports = size.cas;
  const uint64_t local = mul_sat(p.g, uint64_t{p.a} * (p.a - 1) / 2);
  uint64_t global = 0;
  if (p.g >= 2) {
    // Every port is cabled except one per group when a*h is odd and g odd.
    const uint64_t rest = global_ports_per_group(p) % (p.g - 1);
    const uint64_t spare = rest % 2 == 1 && p.g % 2 == 1 ? 1 : 0;
    global = mul_sat(p.g, global_ports_per_group(p) - spare) / 2;
  }
  size.switch_links = add_sat(local, global);
  size.links = add_sat(size.cas, size.switch_links);
  size.switch_ports = mul_sat(size.switches, ports);
  IBSM_RETURN_IF_ERROR(check_size(size));
  return size;
}

Result<Fabric> dragonfly(const DragonflyParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  const unsigned hosts = p.p;
  const unsigned local_base = hosts + 1;           // first local port
  const unsigned global_base = hosts + p.a;        // first global port (after a-1 local)
  const unsigned ports = hosts + (p.a - 1) + p.h;

  FabricBuilder b(p.link);
  std::vector<NodeIndex> routers;  // group * a + router
  routers.reserve(size->switches);
  for (uint32_t grp = 0; grp < p.g; ++grp) {
    for (uint32_t r = 0; r < p.a; ++r) routers.push_back(b.add_switch(fmt::format("sw-{}-{}", grp, r), ports));
  }
  for (NodeIndex r : routers) {
    for (unsigned h = 0; h < hosts; ++h) b.connect(b.add_host(), 1, r, 1 + h);
  }
  // Local all-to-all: router j reaches peer k through local port k (k < j) or k-1.
  for (uint32_t grp = 0; grp < p.g; ++grp) {
    for (uint32_t j = 0; j < p.a; ++j) {
      for (uint32_t k = j + 1; k < p.a; ++k) {
        b.connect(routers[uint64_t{grp} * p.a + j], local_base + k - 1, routers[uint64_t{grp} * p.a + k],
                  local_base + j);
      }
    }
  }
  std::vector<uint64_t> used(p.g, 0);  // global ports taken per group
  auto take = [&](uint64_t grp, NodeIndex& node, unsigned& port) {
    const uint64_t k = used[grp]++;
    node = routers[grp * p.a + k / p.h];
    port = global_base + static_cast<unsigned>(k % p.h);
  };
  for_each_global_cable(p, [&](uint64_t x, uint64_t y) {
    NodeIndex nx, ny;
    unsigned px = 0, py = 0;
    take(x, nx, px);
    take(y, ny, py);
    b.connect(nx, px, ny, py);
  });
  return std::move(b).finish();
}

}  // namespace ibsm::topogen
