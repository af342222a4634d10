// The status page's input from a running SubnetManager: what the daemon
// publishes to its HTTP listener after each sweep (the manager is never
// read from another thread: the main thread fills a StatusPageInput, whose
// snapshot is immutable and shared, and hands it over).
#pragma once

#include <cstddef>
#include <vector>

#include "sm/manager/subnet_manager.h"
#include "sm/status_page/status_page.h"

namespace ibsm::status {

// The last few sweeps, oldest first: the edge adds one from the manager's
// sweep listener (heavy_sweep_record).
class SweepHistory {
 public:
  explicit SweepHistory(size_t keep = 10) : keep_(keep) {}
  void add(SweepRecord record);
  const std::vector<SweepRecord>& records() const { return records_; }

 private:
  size_t keep_;
  std::vector<SweepRecord> records_;
};

// A heavy sweep as the sweep listener reports it, ended at `now`.
SweepRecord heavy_sweep_record(const SweepReport& report, Micros elapsed, Micros now);

// Everything the page shows, as the manager holds it at `now`.
StatusPageInput status_page_input(const SubnetManager& manager, const SweepHistory& history, Micros now);

}  // namespace ibsm::status
