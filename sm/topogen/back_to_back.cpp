// Two CAs cabled port 1 to port 1: the smallest fabric an SM can manage.
#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/validate.h"

namespace ibsm::topogen {

Result<SizeEstimate> estimate(const BackToBackParams& p) {
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  SizeEstimate size;
  size.cas = 2;
  size.ca_ports = 2;
  size.links = 1;
  return size;
}

Result<Fabric> back_to_back(const BackToBackParams& p) {
  IBSM_RETURN_IF_ERROR(check_link(p.link));
  FabricBuilder b(p.link);
  const NodeIndex first = b.add_host();
  const NodeIndex second = b.add_host();
  b.connect(first, 1, second, 1);
  return std::move(b).finish();
}

}  // namespace ibsm::topogen
