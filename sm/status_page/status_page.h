// The status page: one self-contained HTML5 page (inline CSS, an inline SVG
// picture of the fabric, no script) with what an operator asks first: is
// this SM master, when did it last sweep and how long did that take, what
// went wrong, how is the fabric routed and where is the load.
//
// Pure: it renders a string from a plain StatusPageInput, so tests, `ibsm
// check --status-page` and the daemon's HTTP listener all render the same
// page. Every string from the fabric is escaped (html_escape.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/types.h"
#include "routing/port_routes.h"
#include "sm/fabric/subnet_snapshot.h"
#include "sm/sweep/sweep_record.h"
#include "sm/sweep/sweep_problem.h"
#include "sm/status_page/fabric_picture.h"

namespace ibsm::status {


struct SmFacts {
  std::string state;     // "MASTER", "STANDBY", ... (wire::sm_state names); empty: no SM (offline)
  uint8_t priority = 0;
  Guid port_guid;
  Lid lid;
  std::string master;    // the master this SM follows, readable ("0x... lid 1"); empty when none or itself
};

struct StatusPageInput {
  std::string title = "ibsm";
  Micros now = 0;                                 // for "12 s ago"
  SmFacts sm;
  std::shared_ptr<const SubnetSnapshot> subnet;   // null: no subnet configured yet
  std::vector<routing::PortRoutes> port_routes;   // routed load per switch port (the route check)
  std::map<PortRef, uint64_t> port_errors;        // error counts per port (the perf manager), may be empty
  std::string routing_engine;
  std::string routing_check;                      // RouteCheck::to_string
  bool routing_check_ok = true;
  std::vector<SweepRecord> sweeps;                // the manager's last few, oldest first (on now's clock)
  std::vector<SweepProblem> problems;             // of the last sweep
  std::vector<std::string> check_problems;        // offline: the route checker's failed pairs, LID clashes
  std::string last_error;                         // the last sweep that could not run at all
};

struct StatusPageOptions {
  PictureOptions picture;
  size_t max_sweeps = 10;         // rows of the sweep table, the latest
  size_t max_problems = 50;
  size_t loaded_links = 10;       // rows of the most loaded links table
};

std::string render_status_page(const StatusPageInput& input, const StatusPageOptions& options = {});

}  // namespace ibsm::status
