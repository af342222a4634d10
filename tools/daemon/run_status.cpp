#include "tools/daemon/run_status.h"

#include <fmt/format.h>

#include "mad/wire/constants.h"

namespace ibsm {

bool first_sweep_settled(const SubnetManager& sm) {
  return sm.last_sweep() || !sm.last_error().empty() || sm.state() == SmState::standby ||
         sm.state() == SmState::not_active;
}

OnceVerdict once_verdict(const SubnetManager& sm) {
  if (sm.last_sweep()) return {sm.subnet_up() ? 0 : 1, {}};
  if (!sm.last_error().empty()) return {1, fmt::format("SUBNET NOT UP: {}", sm.last_error())};
  if (sm.master())
    return {1, fmt::format("SUBNET NOT UP: the sm at port {} (lid {}) is master", sm.master()->port_guid,
                           static_cast<unsigned>(sm.master()->lid.value))};
  return {1, fmt::format("SUBNET NOT UP: this sm is {}", sm_state_name(sm.state()))};
}

std::string status_line(const SubnetManager& sm) {
  std::string line = sm_state_name(sm.state());
  if (const SweepReport* r = sm.last_sweep()) {
    line += fmt::format(": SUBNET {}, {} nodes, sm lid {}", sm.subnet_up() ? "UP" : "NOT UP",
                        r->subnet->fabric.node_count(), r->sm_lid.value);
  } else if (!sm.last_error().empty()) {
    line += ": " + sm.last_error();
  } else if (sm.master()) {
    line += fmt::format(": master is port {} (lid {})", sm.master()->port_guid, sm.master()->lid.value);
  }
  return line;
}

}  // namespace ibsm
