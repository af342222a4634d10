// The SIGHUP reload of `ibsm run`: the config file again with the flags over
// it, then the partitions file and the QoS policy it names. A bad one
// (either) changes nothing and is logged with file:line. Otherwise every
// changed key is logged, the reloadable ones apply (the manager's through
// reconfigure, the log level on the daemon's sink), a changed key that
// needs a restart is logged and kept, and the partitions and QoS policy are
// replaced. A heavy sweep either way.
#pragma once

#include "mad/base/log.h"
#include "sm/config/sm_config.h"
#include "sm/manager/subnet_manager.h"
#include "tools/os/run_inputs.h"

namespace ibsm {

// The log level a config's log_level (0-4, above: 4) sets.
LogLevel log_level_of(uint32_t n);

// `config`: the daemon's effective config, updated in place; `level_sink`:
// the sink whose level log_level sets, and where the reload logs.
void reload_on_hup(const ConfigSources& sources, SmConfig& config, SubnetManager& sm, FilteringLogSink& level_sink);

}  // namespace ibsm
