#include "sm/topogen/fail_links.h"

#include <utility>

#include <fmt/format.h>

#include "sm/topogen/prng.h"

namespace ibsm::topogen {

Result<std::vector<Link>> fail_links(Fabric& fabric, const FailLinksOptions& options) {
  std::vector<Link> candidates;
  for (const Link& link : fabric.links()) {
    const bool between_switches = fabric.node(link.a.node).is_switch() && fabric.node(link.b.node).is_switch();
    if (between_switches || options.include_ca_links) candidates.push_back(link);
  }
  if (options.count > candidates.size()) {
    return invalid_argument_error(fmt::format("cannot fail {} links: the fabric has only {} {}", options.count,
                                              candidates.size(),
                                              options.include_ca_links ? "links" : "switch-to-switch links"));
  }
  // A partial Fisher-Yates shuffle: the first `count` entries are distinct draws.
  Prng rng(options.seed);
  std::vector<Link> failed;
  failed.reserve(options.count);
  for (uint64_t i = 0; i < options.count; ++i) {
    const uint64_t j = i + rng.below(candidates.size() - i);
    std::swap(candidates[i], candidates[j]);
    failed.push_back(candidates[i]);
    fabric.disconnect(candidates[i].a);
    for (const PortRef& end : {candidates[i].a, candidates[i].b}) {
      Port& port = fabric.node(end.node).port(end.port);
      port.state = PortState::down;
      port.phys_state = PhysState::polling;  // an unplugged port polls for a peer
    }
  }
  return failed;
}

}  // namespace ibsm::topogen
