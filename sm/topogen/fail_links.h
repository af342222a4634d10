// Fault injection on a generated fabric: remove cables chosen from a seed.
#pragma once

#include <cstdint>
#include <vector>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"

namespace ibsm::topogen {

struct FailLinksOptions {
  uint64_t count = 1;
  uint64_t seed = 1;
  // Also pick cables with a CA at one end; by default only switch-to-switch
  // cables fail, which keeps every endpoint attached.
  bool include_ca_links = false;
};

// Disconnects `count` distinct cables drawn from the candidates (in
// Fabric::links() order) with the seed, and returns them in the order they
// were drawn. Fails, leaving the fabric untouched, when count exceeds the
// number of candidates.
Result<std::vector<Link>> fail_links(Fabric& fabric, const FailLinksOptions& options);

}  // namespace ibsm::topogen
