#include "sm/multicast/multicast_update.h"

namespace ibsm {

Result<MulticastUpdate> update_multicast(MadDispatcher& dispatcher, SweepState& state, MulticastForwarding& forwarding,
                                         std::span<const MulticastGroupMembers> changed, bool full, LogSink& log,
                                         MftProgramOptions options) {
  MulticastUpdate u;
  u.groups = changed.size();
  const Status trees = forwarding.update(changed);
  if (!trees.ok()) {
    u.tree_error = trees.message();
    ibsm::log(log, LogLevel::error, Subsystem::sweep, "multicast trees: {}", u.tree_error);
  }
  // Judge the trees before they are programmed, as the routing step judges
  // the LFTs; a failed check is logged, not fatal.
  u.check = routing::check_multicast(forwarding.subnet().fabric, forwarding.tables(), changed,
                                     {.max_problems = 3, .max_sources = 4});
  ibsm::log(log, u.check.ok() ? LogLevel::info : LogLevel::warn, Subsystem::routing, "{}", u.check.to_string());
  for (const std::string& problem : u.check.problems)
    ibsm::log(log, LogLevel::warn, Subsystem::routing, "multicast check: {}", problem);
  if (!full) {
    options.only_mlids.clear();
    for (const MulticastGroupMembers& g : changed) options.only_mlids.push_back(g.mlid);
    if (options.only_mlids.empty()) return u;
  }
  auto programmed = program_mfts(dispatcher, state, forwarding.subnet(), forwarding.tables(), log, options);
  if (!programmed.ok()) return programmed.status();
  u.programming = std::move(*programmed);
  return u;
}

}  // namespace ibsm
