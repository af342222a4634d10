// Binary hypercube of switches.
#include <fmt/format.h>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {

Result<SizeEstimate> estimate(const HypercubeParams& p) {
  IBSM_RETURN_IF_ERROR(check_at_least("hypercube dimension", p.dimension, 1));
  if (p.dimension > 20) {
    return invalid_argument_error(fmt::format("hypercube dimension {} is more than 20", p.dimension));
  }
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  const uint64_t ports = uint64_t{p.hosts_per_switch} + p.dimension;
  IBSM_RETURN_IF_ERROR(check_switch_ports("hypercube switch", ports));

  SizeEstimate size;
  size.switches = uint64_t{1} << p.dimension;
  size.cas = mul_sat(size.switches, p.hosts_per_switch);
  size.ca_ports = size.cas;
  size.switch_links = size.switches / 2 * p.dimension;
  size.links = add_sat(size.cas, size.switch_links);
  size.switch_ports = mul_sat(size.switches, ports);
  IBSM_RETURN_IF_ERROR(check_size(size));
  return size;
}

Result<Fabric> hypercube(const HypercubeParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  const unsigned hosts = p.hosts_per_switch;

  FabricBuilder b(p.link);
  std::vector<NodeIndex> switches;
  switches.reserve(size->switches);
  for (uint64_t i = 0; i < size->switches; ++i) {
    switches.push_back(b.add_switch(fmt::format("sw-{}", i), hosts + p.dimension));
  }
  for (uint64_t i = 0; i < size->switches; ++i) {
    for (unsigned h = 0; h < hosts; ++h) b.connect(b.add_host(), 1, switches[i], 1 + h);
  }
  for (uint64_t i = 0; i < size->switches; ++i) {
    for (unsigned bit = 0; bit < p.dimension; ++bit) {
      const uint64_t peer = i ^ (uint64_t{1} << bit);
      if (peer > i) b.connect(switches[i], hosts + 1 + bit, switches[peer], hosts + 1 + bit);
    }
  }
  return std::move(b).finish();
}

}  // namespace ibsm::topogen
