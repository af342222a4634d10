// The status page's input from a running SubnetManager: what the daemon
// publishes to its HTTP listener after each poll that changed something (the
// manager is never read from another thread: the main thread fills a
// StatusPageInput, whose snapshot is immutable and shared, and hands it over).
#pragma once

#include "sm/manager/subnet_manager.h"
#include "sm/status_page/status_page.h"

namespace ibsm::status {

// Everything the page shows, as the manager holds it at `now` (its clock).
StatusPageInput status_page_input(const SubnetManager& manager, Micros now);

}  // namespace ibsm::status
