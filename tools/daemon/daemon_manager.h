// The one wiring of the SubnetManager that `ibsm run` uses on either
// transport (libibumad, or SimFabric for --sim): the manager over a
// Transport and a Clock, with the partitions, the QoS policy, the aside
// runner, the SA's registrations from the cache (imported before the first
// sweep), and the listeners that
// save the cache, write the dump files (after each sweep, and opensm.mcfdbs
// after joins and leaves) and, with -o, print each sweep's summary. The
// daemon's config lives here, so the SIGHUP reload updates what the
// listeners read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/transport.h"
#include "sm/config/sm_config.h"
#include "sm/manager/subnet_manager.h"
#include "tools/os/run_inputs.h"
#include "tools/os/sm_cache_writer.h"

namespace ibsm {

// The lines `ibsm run -o` prints after a sweep that configured the subnet:
// "SUBNET UP: ...", the MADs it took, the route check, the phases, the problems.
std::string sweep_summary(const SweepReport& report, Micros elapsed);
// "  mads by kind: SubnGet:NodeInfo=12 ...": every MAD sent so far by class,
// method and attribute (what tools/umad_count counts under umad).
std::string mads_by_kind(const DispatcherStats& stats);

struct DaemonWiring {
  // Where the cache is saved after a sweep: on this writer's thread, or, when
  // null, in line on the main thread.
  SmCacheWriter* cache_writer = nullptr;
  // -o: print each sweep's summary (sweep_summary, mads_by_kind) to stdout.
  bool print_summaries = false;
  // After the listeners above, for each sweep that configured the subnet.
  std::function<void(const SweepReport&)> after_sweep;
};

class DaemonManager {
 public:
  // `log`: the daemon's sink (the reload sets its level). `port`, `clock`
  // and `log` must outlive the manager.
  static Result<std::unique_ptr<DaemonManager>> create(Transport& port, const Clock& clock, SmConfig config,
                                                       RunInputs inputs, SweepState state, FilteringLogSink& log,
                                                       DaemonWiring wiring);
  DaemonManager(const DaemonManager&) = delete;
  DaemonManager& operator=(const DaemonManager&) = delete;

  SubnetManager& manager() { return *sm_; }
  const SubnetManager& manager() const { return *sm_; }
  // The effective config (after the reloads).
  const SmConfig& config() const { return config_; }
  // SIGHUP: reload_on_hup (tools/daemon/sighup_reload.h) from `sources`.
  void reload(const ConfigSources& sources);

 private:
  DaemonManager(SmConfig config, FilteringLogSink& log, DaemonWiring wiring)
      : config_(std::move(config)), log_(log), wiring_(std::move(wiring)) {}
  void restore_sa(const Clock& clock);
  void listen();

  SmConfig config_;
  FilteringLogSink& log_;
  DaemonWiring wiring_;
  std::unique_ptr<SubnetManager> sm_;
};

}  // namespace ibsm
