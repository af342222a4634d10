// Two-level leaf/spine fabric.
#include <algorithm>

#include <fmt/format.h>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {

Result<SizeEstimate> estimate(const LeafSpineParams& p) {
  IBSM_RETURN_IF_ERROR(check_at_least("leaves", p.leaves, 1));
  IBSM_RETURN_IF_ERROR(check_at_least("spines", p.spines, 1));
  IBSM_RETURN_IF_ERROR(check_at_least("links per leaf-spine pair", p.links_per_pair, 1));
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  const uint64_t leaf_ports = add_sat(p.hosts_per_leaf, mul_sat(p.spines, p.links_per_pair));
  const uint64_t spine_ports = mul_sat(p.leaves, p.links_per_pair);
  IBSM_RETURN_IF_ERROR(check_switch_ports("leaf", leaf_ports));
  IBSM_RETURN_IF_ERROR(check_switch_ports("spine", spine_ports));
  const uint64_t radix = std::max(leaf_ports, spine_ports);
  IBSM_RETURN_IF_ERROR(check_radix(p.radix, radix));

  SizeEstimate size;
  size.switches = uint64_t{p.leaves} + p.spines;
  size.cas = mul_sat(p.leaves, p.hosts_per_leaf);
  size.ca_ports = size.cas;
  size.switch_links = mul_sat(mul_sat(p.leaves, p.spines), p.links_per_pair);
  size.links = size.cas + size.switch_links;
  size.switch_ports = size.switches * (p.radix ? p.radix : radix);
  IBSM_RETURN_IF_ERROR(check_size(size));
  return size;
}

Result<Fabric> leaf_spine(const LeafSpineParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  // Uniform switches, as real leaf/spine fabrics are built from one model.
  const unsigned radix = static_cast<unsigned>(size->switch_ports / size->switches);

  FabricBuilder b(p.link);
  std::vector<NodeIndex> leaves, spines;
  for (uint32_t l = 0; l < p.leaves; ++l) leaves.push_back(b.add_switch(fmt::format("leaf-{}", l), radix));
  for (uint32_t s = 0; s < p.spines; ++s) spines.push_back(b.add_switch(fmt::format("spine-{}", s), radix));
  for (uint32_t l = 0; l < p.leaves; ++l) {
    for (uint32_t h = 0; h < p.hosts_per_leaf; ++h) b.connect(b.add_host(), 1, leaves[l], 1 + h);
  }
  for (uint32_t l = 0; l < p.leaves; ++l) {
    for (uint32_t s = 0; s < p.spines; ++s) {
      for (uint32_t k = 0; k < p.links_per_pair; ++k) {
        const unsigned leaf_port = p.hosts_per_leaf + 1 + s * p.links_per_pair + k;
        const unsigned spine_port = 1 + l * p.links_per_pair + k;
        b.connect(leaves[l], leaf_port, spines[s], spine_port);
      }
    }
  }
  return std::move(b).finish();
}

}  // namespace ibsm::topogen
