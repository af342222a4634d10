// What `ibsm run` says of the manager's state: whether the first sweep
// settled (where -o stops and the daemon tells systemd it is ready), -o's
// verdict, and the status line systemd shows.
#pragma once

#include <string>

#include "sm/manager/subnet_manager.h"

namespace ibsm {

// The first sweep settled it, one way or the other: a sweep that configured
// the subnet, an error, or this SM STANDBY or NOT ACTIVE.
bool first_sweep_settled(const SubnetManager& sm);

struct OnceVerdict {
  int exit_status = 1;  // 0: SUBNET UP
  std::string line;     // "SUBNET NOT UP: ..." to print, when no sweep configured the subnet
};
// -o's exit status once the first sweep settled.
OnceVerdict once_verdict(const SubnetManager& sm);

// The state systemd shows (systemctl status): the SM's state and, as master,
// the subnet the last sweep left.
std::string status_line(const SubnetManager& sm);

}  // namespace ibsm
