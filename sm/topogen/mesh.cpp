// Meshes and tori of 1 to 3 dimensions.
#include <string>

#include <fmt/format.h>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {

Result<SizeEstimate> estimate(const MeshParams& p) {
  const char* kind = p.torus ? "torus" : "mesh";
  if (p.dims.empty() || p.dims.size() > 3) {
    return invalid_argument_error(fmt::format("a {} has 1 to 3 dimensions (got {})", kind, p.dims.size()));
  }
  for (size_t d = 0; d < p.dims.size(); ++d) {
    IBSM_RETURN_IF_ERROR(check_at_least(fmt::format("dimension {} of the {}", d, kind), p.dims[d], 2));
  }
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  const uint64_t ports = uint64_t{p.hosts_per_switch} + 2 * p.dims.size();
  IBSM_RETURN_IF_ERROR(check_switch_ports(fmt::format("{} switch", kind), ports));

  SizeEstimate size;
  size.switches = 1;
  for (uint32_t n : p.dims) size.switches = mul_sat(size.switches, n);
  size.cas = mul_sat(size.switches, p.hosts_per_switch);
  size.ca_ports = size.cas;
  for (uint32_t n : p.dims) {
    // Lines along this dimension, each with n-1 cables (n with the wrap).
    const uint64_t lines = size.switches / n;
    size.switch_links = add_sat(size.switch_links, mul_sat(lines, p.torus ? n : n - 1));
  }
  size.links = add_sat(size.cas, size.switch_links);
  size.switch_ports = mul_sat(size.switches, ports);
  IBSM_RETURN_IF_ERROR(check_size(size));
  return size;
}

Result<Fabric> mesh(const MeshParams& p) {
  auto size = estimate(p);
  if (!size.ok()) return size.status();
  const size_t rank = p.dims.size();
  const unsigned hosts = p.hosts_per_switch;
  const unsigned ports = hosts + static_cast<unsigned>(2 * rank);

  // Switch index = coordinates in mixed radix, the first dimension fastest.
  std::vector<uint64_t> stride(rank, 1);
  for (size_t d = 1; d < rank; ++d) stride[d] = stride[d - 1] * p.dims[d - 1];
  auto coordinate = [&](uint64_t index, size_t d) { return (index / stride[d]) % p.dims[d]; };

  FabricBuilder b(p.link);
  std::vector<NodeIndex> switches;
  switches.reserve(size->switches);
  for (uint64_t i = 0; i < size->switches; ++i) {
    std::string name = "sw";
    for (size_t d = 0; d < rank; ++d) name += fmt::format("-{}", coordinate(i, d));
    switches.push_back(b.add_switch(std::move(name), ports));
  }
  for (uint64_t i = 0; i < size->switches; ++i) {
    for (unsigned h = 0; h < hosts; ++h) b.connect(b.add_host(), 1, switches[i], 1 + h);
  }
  for (uint64_t i = 0; i < size->switches; ++i) {
    for (size_t d = 0; d < rank; ++d) {
      const unsigned plus = hosts + 1 + static_cast<unsigned>(2 * d);
      const uint64_t x = coordinate(i, d);
      uint64_t next;
      if (x + 1 < p.dims[d]) {
        next = i + stride[d];
      } else if (p.torus) {
        next = i - x * stride[d];  // wrap to coordinate 0
      } else {
        continue;
      }
      b.connect(switches[i], plus, switches[next], plus + 1);
    }
  }
  return std::move(b).finish();
}

}  // namespace ibsm::topogen
