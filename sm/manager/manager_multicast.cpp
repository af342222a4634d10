// The SubnetManager's multicast step: after a heavy sweep, every group's
// tree on the new snapshot; after SA joins and leaves, the changed groups
// (sm/multicast/multicast_service.h does the work).
#include "sm/manager/subnet_manager.h"

namespace ibsm {

void SubnetManager::request_multicast_update(std::vector<MulticastGroupMembers> changed) {
  for (MulticastGroupMembers& g : changed) multicast_pending_[g.mlid.value] = std::move(g.members);
}

std::vector<MulticastGroupMembers> SubnetManager::sa_groups() const {
  std::vector<MulticastGroupMembers> groups;
  groups.reserve(sa_.multicast().size());
  for (const auto& [mgid, group] : sa_.multicast().groups()) {
    const Lid mlid = group.properties.mlid;
    groups.push_back({mlid, sa_.multicast().members(mlid)});
  }
  return groups;
}

void SubnetManager::program_multicast(const SweepReport& report) {
  multicast_pending_.clear();  // every group is taken now
  if (!multicast_groups_ || !report.subnet) return;
  const std::vector<MulticastGroupMembers> groups = multicast_groups_(*report.subnet);
  auto update = multicast_.after_heavy_sweep(dispatcher_, sweep_state_, report, groups, log_);
  if (!update.ok()) {
    log(log_, LogLevel::error, Subsystem::sweep, "multicast programming failed: {}", update.status().message());
    last_multicast_.reset();
    return;
  }
  last_multicast_ = std::move(*update);
}

void SubnetManager::run_multicast_changes() {
  auto changed = std::move(multicast_pending_);
  multicast_pending_.clear();
  // Each group as its latest change left it; the SA's as the SA holds it now.
  std::vector<MulticastGroupMembers> latest;
  latest.reserve(changed.size());
  for (auto& [mlid, members] : changed)
    latest.push_back({Lid{mlid}, members ? std::move(*members) : sa_.multicast().members(Lid{mlid})});
  auto update = multicast_.after_membership_change(dispatcher_, sweep_state_, latest, log_);
  if (!update.ok()) {
    log(log_, LogLevel::error, Subsystem::sweep, "multicast update failed: {}", update.status().message());
    return;
  }
  last_multicast_ = std::move(*update);
  sa_.set_multicast_tables(multicast_.tables());
  if (on_multicast_ && multicast_.tables() && multicast_.subnet()) on_multicast_(*multicast_.tables(), *multicast_.subnet());
}

}  // namespace ibsm
