#include "sm/status_page/manager_status.h"

#include <fmt/format.h>

#include "mad/wire/sm_info.h"

namespace ibsm::status {

void SweepHistory::add(SweepRecord record) {
  records_.push_back(std::move(record));
  if (records_.size() > keep_) records_.erase(records_.begin(), records_.end() - static_cast<std::ptrdiff_t>(keep_));
}

SweepRecord heavy_sweep_record(const SweepReport& report, Micros elapsed, Micros now) {
  return {.kind = report.stopped_after_discovery ? "discovery" : "heavy",
          .at = now,
          .duration = elapsed,
          .mads = report.total_mads(),
          .subnet_up = report.subnet_up};
}

StatusPageInput status_page_input(const SubnetManager& manager, const SweepHistory& history, Micros now) {
  StatusPageInput in;
  in.now = now;
  const wire::SmInfo info = manager.sm_info();
  in.sm.state = wire::sm_state_name(manager.state());
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
  in.sweeps = history.records();
  in.last_error = manager.last_error();
  return in;
}

}  // namespace ibsm::status
