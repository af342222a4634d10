// The SM's metrics: what the manager, its MAD dispatcher, the SM agent and
// the SA agent counted, collected into a registry at `now` (the manager's
// clock). Every family is named ibsm_..., in base units (_seconds, _total).
// The edge renders the registry and serves it; the core only collects.
#pragma once

#include "mad/base/clock.h"
#include "sm/metrics/metrics_registry.h"

namespace ibsm {
class SubnetManager;
}

namespace ibsm::metrics {

void collect_sm_metrics(const SubnetManager& sm, Micros now, MetricsRegistry& out);

}  // namespace ibsm::metrics
