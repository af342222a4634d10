// What the SubnetManager keeps for multicast between sweeps: the forwarding
// state of the current snapshot, kept up to date and programmed. Two calls:
// after every heavy sweep that configured the subnet (every group, new
// trees: the topology or the LIDs may have changed) and after the SA's joins
// and leaves (only the changed groups). Each publishes the tables as an
// immutable value for the SA (MulticastForwardingTableRecords) and the dumps
// (write_opensm_mcfdbs).
#pragma once

#include <memory>
#include <span>

#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/dispatcher.h"
#include "sm/fabric/multicast_tables.h"
#include "sm/multicast/multicast_update.h"
#include "sm/sweep/heavy_sweep.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

class MulticastService {
 public:
  // `groups`: every group, its members as ports of report.subnet's fabric.
  Result<MulticastUpdate> after_heavy_sweep(MadDispatcher& dispatcher, SweepState& state, const SweepReport& report,
                                            std::span<const MulticastGroupMembers> groups, LogSink& log);
  // `changed`: the groups whose members changed (no members: deleted), as
  // ports of the snapshot of the last heavy sweep. Fails before the first one.
  Result<MulticastUpdate> after_membership_change(MadDispatcher& dispatcher, SweepState& state,
                                                  std::span<const MulticastGroupMembers> changed, LogSink& log);

  // The tables the switches were last programmed with (null before the first
  // heavy sweep); the snapshot whose NodeIndex they use.
  const std::shared_ptr<const MulticastTables>& tables() const { return published_; }
  const std::shared_ptr<const SubnetSnapshot>& subnet() const;

 private:
  Result<MulticastUpdate> publish(Result<MulticastUpdate> update);

  std::unique_ptr<MulticastForwarding> forwarding_;
  std::shared_ptr<const MulticastTables> published_;
};

}  // namespace ibsm
