// The manager's state as the operator sees it (ibsm ctl status, sminfo):
// a plain copy taken between polls, so the daemon's control socket can
// answer from it while the next sweep runs, and rendered as JSON or as text
// in the style of infiniband-diags' sminfo and OpenSM's console `status`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/types.h"
#include "sm/manager/subnet_manager.h"

namespace ibsm {

struct SmPeerStatus {
  Guid port_guid;
  Lid lid;
  uint8_t priority = 0;
  uint8_t state = 0;  // SMInfo:SMState as last read
  uint32_t act_count = 0;
};

struct ManagerStatus {
  // This SM.
  SmState state = SmState::not_active;
  uint8_t priority = 0;             // sm_priority as configured
  uint8_t advertised_priority = 0;  // in its SMInfo (elevated, or 0 after an operator's handover)
  Guid port_guid;
  Lid lid;
  uint32_t act_count = 0;
  std::optional<SmPeerStatus> master;  // STANDBY: the master it follows
  std::vector<SmPeerStatus> other_sms;
  // The most recent sweep of any kind, and the last that configured the subnet.
  SweepRecord last_sweep;
  bool configured = false;  // the fields below are set
  bool subnet_up = false;
  size_t nodes = 0, switches = 0, cas = 0, links = 0;
  uint16_t lid_top = 0;
  Lid sm_lid;
  std::string routing_engine;
  std::string route_check;  // the route checker's line; empty: not checked
  bool route_check_ok = true;
  std::vector<SweepProblem> problems;
  std::string last_error;  // the last heavy sweep could not run at all
  ManagerCounters counters;
  // Storms: traps received, how many repeated or were ignored (trap_filter.h),
  // and the ports held down (flap_quarantine.h).
  uint64_t traps = 0;
  TrapFilterCounters trap_filter;
  size_t ports_quarantined = 0;
  uint64_t mads_sent = 0, mads_retried = 0, mads_timed_out = 0;
  Micros taken_at = 0;  // the manager's clock when this copy was taken
};

// `own_lid`: the local port's LID as the edge reads it, for when the
// manager knows none yet (SubnetManager::own_lid).
ManagerStatus manager_status(const SubnetManager& sm, Lid own_lid, Micros now);

// Ages are said relative to `now` (the same clock as the manager's).
std::string status_json(const ManagerStatus& s, Micros now);
std::string status_text(const ManagerStatus& s, Micros now);
std::string sminfo_json(const ManagerStatus& s);
// sminfo's line for this SM ("sminfo: sm lid 1 sm guid 0x..., activity count
// 12 priority 5 state 3 SMINFO_MASTER"), then one per other SM known.
std::string sminfo_text(const ManagerStatus& s);

}  // namespace ibsm
