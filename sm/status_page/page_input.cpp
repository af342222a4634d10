#include "sm/status_page/page_input.h"

#include <fmt/format.h>

#include "mad/wire/sm_info.h"

namespace ibsm::status {

StatusPageInput status_page_input(const SubnetManager& manager, Micros now) {
  StatusPageInput in;
  in.now = now;
  const wire::SmInfo info = manager.sm_info();
  in.sm.state = sm_state_name(manager.state());
  in.sm.priority = info.priority;
  in.sm.port_guid = info.guid;
  if (manager.master()) {
    in.sm.master = fmt::format("{} lid {} (priority {})", manager.master()->port_guid, manager.master()->lid.value,
                               manager.master()->info.priority);
  }
  in.subnet = manager.subnet();
  if (in.subnet) {
    in.sm.lid = in.subnet->sm_lid;
    in.routing_engine = in.subnet->routing_engine;
  }
  if (const SweepReport* last = manager.last_sweep()) {
    in.port_routes = last->routes.port_routes;
    in.routing_engine = last->routes.engine;
    in.routing_check = last->routes.check;
    in.routing_check_ok = last->routes.check_ok;
    in.problems = last->problems;
  }
  in.sweeps.assign(manager.sweep_history().begin(), manager.sweep_history().end());
  // The ports with error counts (the performance manager's totals, as
  // ibqueryerrors would list them): their links are drawn red.
  if (in.subnet) {
    for (const auto& [key, p] : manager.perf().ports()) {
      if (p.error_total() == 0) continue;
      if (const auto node = in.subnet->fabric.find_by_node_guid(p.node_guid))
        in.port_errors[PortRef{*node, p.port}] = p.error_total();
    }
  }
  in.last_error = manager.last_error();
  return in;
}

}  // namespace ibsm::status
