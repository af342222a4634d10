// Fat trees: XGFT(h; m1..mh; w1..wh) and the k-ary n-tree as its special case.
//
// A level-i node (level 0 = hosts) is labelled by the child digits
// (a_{i+1}..a_h), a_j < m_j, that say which subtree it serves, and the parent
// digits (b_1..b_i), b_j < w_j, that say which of the replicated switches it is.
// Its index in the level is A * W_i + B, with A and B those digits in mixed
// radix (lowest level least significant) and W_i = w_1 * .. * w_i. Its parent
// through up port t drops a_{i+1} and appends b_{i+1} = t; the parent reaches
// it back through down port 1 + a_{i+1}.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {
namespace {

// Shape of a valid XGFT, with level 0 = hosts.
struct XgftShape {
  size_t height = 0;
  std::vector<uint64_t> count;  // nodes per level 0..h
  std::vector<uint64_t> ports;  // ports per node, level 0..h
  uint64_t radix = 0;           // the most ports any switch level needs
};

XgftShape shape_of(const XgftParams& p) {
  XgftShape s;
  s.height = p.down.size();
  for (size_t level = 0; level <= s.height; ++level) {
    uint64_t n = 1;
    for (size_t j = level; j < s.height; ++j) n = mul_sat(n, p.down[j]);  // m_{level+1}..m_h
    for (size_t j = 0; j < level; ++j) n = mul_sat(n, p.up[j]);           // w_1..w_level
    s.count.push_back(n);
    const uint64_t down = level == 0 ? 0 : p.down[level - 1];
    const uint64_t up = level < s.height ? p.up[level] : 0;
    s.ports.push_back(down + up);
    if (level > 0) s.radix = std::max(s.radix, down + up);
  }
  return s;
}

std::string level_name(size_t level, size_t height) {
  if (level == 1) return "leaf";
  if (level == height) return "spine";
  if (height == 3) return "agg";
  return fmt::format("agg{}", level);
}

}  // namespace

Result<SizeEstimate> estimate(const XgftParams& p) {
  if (p.down.empty()) return invalid_argument_error("a fat tree needs at least one level of down counts");
  if (p.up.size() != p.down.size()) {
    return invalid_argument_error(fmt::format("a fat tree needs as many up counts as down counts ({} != {})",
                                              p.up.size(), p.down.size()));
  }
  for (size_t i = 0; i < p.down.size(); ++i) {
    IBSM_RETURN_IF_ERROR(check_at_least(fmt::format("down[{}]", i), p.down[i], 1));
    IBSM_RETURN_IF_ERROR(check_at_least(fmt::format("up[{}]", i), p.up[i], 1));
  }
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  const XgftShape s = shape_of(p);

  SizeEstimate size;
  size.cas = s.count[0];
  size.ca_ports = mul_sat(s.count[0], p.up[0]);
  for (size_t level = 1; level <= s.height; ++level) {
    size.switches = add_sat(size.switches, s.count[level]);
    // Cables from level-1 below: each of those nodes has w_level parents.
    const uint64_t cables = mul_sat(s.count[level - 1], p.up[level - 1]);
    size.links = add_sat(size.links, cables);
    if (level > 1) size.switch_links = add_sat(size.switch_links, cables);
  }
  IBSM_RETURN_IF_ERROR(check_size(size));
  if (p.up[0] > kMaxSwitchPorts) {
    return invalid_argument_error(fmt::format("hosts with up[0] = {} ports: a CA has at most {}", p.up[0], kMaxSwitchPorts));
  }
  for (size_t level = 1; level <= s.height; ++level) {
    IBSM_RETURN_IF_ERROR(check_switch_ports(level_name(level, s.height), s.ports[level]));
  }
  IBSM_RETURN_IF_ERROR(check_radix(p.radix, s.radix));
  size.switch_ports = mul_sat(size.switches, p.radix ? p.radix : s.radix);
  return size;
}

Result<Fabric> xgft(const XgftParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  const XgftShape s = shape_of(p);
  const unsigned radix = static_cast<unsigned>(p.radix ? p.radix : s.radix);

  FabricBuilder b(p.link);
  // nodes[level][index]; switches first, bottom up, so GUIDs count up the tree.
  std::vector<std::vector<NodeIndex>> nodes(s.height + 1);
  for (size_t level = 1; level <= s.height; ++level) {
    const std::string prefix = level_name(level, s.height);
    nodes[level].reserve(s.count[level]);
    for (uint64_t i = 0; i < s.count[level]; ++i) {
      nodes[level].push_back(b.add_switch(fmt::format("{}-{}", prefix, i), radix));
    }
  }
  nodes[0].reserve(s.count[0]);
  for (uint64_t i = 0; i < s.count[0]; ++i) nodes[0].push_back(b.add_host(p.up[0]));

  uint64_t w_below = 1;  // W_{level-1}
  for (size_t level = 1; level <= s.height; ++level) {
    const uint64_t m = p.down[level - 1];
    const uint64_t w = p.up[level - 1];
    const uint64_t child_up_base = level == 1 ? 1 : p.down[level - 2] + 1;
    for (uint64_t child = 0; child < s.count[level - 1]; ++child) {
      const uint64_t a = child / w_below;  // child digits a_level..a_h
      const uint64_t bits = child % w_below;
      for (uint64_t t = 0; t < w; ++t) {
        const uint64_t parent = (a / m) * (w_below * w) + bits + t * w_below;
        b.connect(nodes[level - 1][child], static_cast<unsigned>(child_up_base + t),
                  nodes[level][parent], static_cast<unsigned>(1 + a % m));
      }
    }
    w_below *= w;
  }
  return std::move(b).finish();
}

XgftParams to_xgft(const KaryNTreeParams& p) {
  XgftParams x;
  x.down.assign(p.n, p.k);
  x.up.assign(p.n, p.k);
  if (!x.up.empty()) x.up[0] = 1;
  x.link = p.link;
  return x;
}

Result<SizeEstimate> estimate(const KaryNTreeParams& p) {
  IBSM_RETURN_IF_ERROR(check_at_least("k", p.k, 2));
  IBSM_RETURN_IF_ERROR(check_at_least("n", p.n, 1));
  if (p.n > 16) return invalid_argument_error(fmt::format("n = {} levels is more than 16", p.n));
  return estimate(to_xgft(p));
}

Result<Fabric> kary_ntree(const KaryNTreeParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  return xgft(to_xgft(p));
}

}  // namespace ibsm::topogen
