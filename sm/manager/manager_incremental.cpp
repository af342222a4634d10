// The manager's choice between an incremental resweep and a heavy sweep
// (sm/sweep/incremental_sweep.h): what a trap or a light sweep named, and
// the incremental pass itself, which hands over to a heavy sweep when in
// doubt.
#include <fmt/format.h>

#include "mad/wire/notice.h"
#include "sm/manager/subnet_manager.h"
#include "sm/sweep/incremental_sweep.h"

namespace ibsm {
namespace {

std::optional<NodeIndex> switch_with_lid(const Fabric& f, Lid lid) {
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    if (n.is_switch() && n.port(0).base_lid == lid) return NodeIndex{i};
  }
  return std::nullopt;
}

}  // namespace

// Trap 128 (IBA 14.2.5.1: a switch's link state changed) names its switch
// by LID in the first 16 bits of DataDetails (notice_fields::trap128_lid);
// any other trap asks for a heavy sweep.
void SubnetManager::note_trap(const wire::Notice& notice) {
  if (!notice.is_generic || notice.trap_number != wire::trap_number::link_state_change || !subnet_) {
    trapped_.need_full();
    return;
  }
  const Lid lid{static_cast<uint16_t>(notice.data_details[0] << 8 | notice.data_details[1])};
  if (auto sw = switch_with_lid(subnet_->fabric, lid)) {
    trapped_.add_switch(subnet_->fabric.node(*sw).node_guid);
    return;
  }
  // A switch the last sweep took out (its trap came as its cables went, or
  // it is coming back): its neighbours that are still in the subnet are the
  // region, since a switch that returns comes back through their ports.
  size_t named = 0;
  if (auto gone = previous_subnet_ ? switch_with_lid(previous_subnet_->fabric, lid) : std::nullopt) {
    const Fabric& before = previous_subnet_->fabric;
    const Node& node = before.node(*gone);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      if (!node.port(p).connected()) continue;
      const Node& peer = before.node(node.port(p).remote_node);
      if (peer.is_switch() && subnet_->fabric.find_by_node_guid(peer.node_guid)) {
        trapped_.add_switch(peer.node_guid);
        ++named;
      }
    }
  }
  if (named != 0) return;
  log(log_, LogLevel::info, Subsystem::sweep, "trap 128 from lid {}: no switch of the subnet has it", lid);
  trapped_.need_full();
}

// The incremental pass reads its region with SMPs that carry no M_Key: while
// the SM sets keys, or ports hold keys it knows, every event is a heavy sweep,
// whose SMPs carry each port's key.
bool SubnetManager::incremental_allowed() const {
  return config_.incremental_sweeps && config_.m_key == 0 && sweep_state_.m_keys.empty();
}

// The traps since the last poll: an incremental resweep of the switches
// they named, or a heavy sweep.
void SubnetManager::take_traps(bool trapped) {
  if (!trapped) return;
  if (!incremental_allowed() || trapped_.full() || trapped_.empty() || !up_) {
    want_heavy_sweep();
  } else {
    for (Guid g : trapped_.take()) incremental_.add_switch(g);
  }
  trapped_.clear();
}

void SubnetManager::plan_after_light_sweep(const LightSweepResult& r) {
  if (!incremental_allowed() || r.needs_full || r.changed_switches.empty() || !up_ || !subnet_) {
    want_heavy_sweep();
    return;
  }
  for (NodeIndex n : r.changed_switches) incremental_.add_switch(subnet_->fabric.node(n).node_guid);
}

void SubnetManager::run_incremental_sweep() {
  const std::vector<Guid> switches = incremental_.take();
  if (!last_ || !subnet_ || !up_) {
    want_heavy_sweep();
    return;
  }
  SweepConfig sc = sweep_config();
  sc.after_discovery = [this](const DiscoveryResult& d) { return elect(d); };
  const Micros t0 = clock_.now();
  const uint64_t sent0 = dispatcher_.stats().sent;
  IncrementalInput input{*subnet_, switches, &last_->routes, config_.use_ucast_cache};
  auto report = incremental_sweep(dispatcher_, clock_, sweep_state_, sc, input, log_);
  if (!report.ok()) {
    log(log_, LogLevel::info, Subsystem::sweep, "incremental sweep of {} switches: {}; heavy sweep instead ({} mads)",
        switches.size(), report.status().message(), dispatcher_.stats().sent - sent0);
    want_heavy_sweep();
    return;
  }
  log(log_, LogLevel::info, Subsystem::sweep, "incremental sweep of {} switches: {} mads in {:.3f} s",
      switches.size(), report->total_mads(), static_cast<double>(clock_.now() - t0) / 1e6);
  finish_sweep(SweepKind::incremental, t0, std::move(report));
}

}  // namespace ibsm
