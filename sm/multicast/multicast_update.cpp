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
