// The performance manager's figures as metrics: its sweeps, and per port
// (node GUID, port, node description) the error, discard, data and packet
// totals it accumulated from the PMA counters (IBA 16.1.3.5), so a
// Prometheus rate() gives the traffic and an alert on the error total finds
// a bad cable. Collected with the SM's metrics, into the same registry.
#pragma once

#include "sm/metrics/metrics_registry.h"
#include "sm/perfmgr/perf_manager.h"

namespace ibsm::metrics {

void collect_perf_metrics(const PerfManager& perf, MetricsRegistry& out);

}  // namespace ibsm::metrics
