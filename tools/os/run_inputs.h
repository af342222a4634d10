// What `ibsm run` reads before it starts the manager, and again at SIGHUP:
// the config file with the flags over it, the partitions file (with
// OpenSM's default rule), the QoS policy, the routing engines' files, and
// the SM cache. The parsing is the core's; the files are the edge's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mad/base/log.h"
#include "mad/base/status.h"
#include "routing/registry.h"
#include "sm/config/sm_config.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/fabric/qos_policy.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

// The flags that set config keys, as (key, value) pairs ("lmc", "2"):
// taken from the command line once, applied over the config file at start
// and at every SIGHUP.
using FlagValues = std::vector<std::pair<std::string, std::string>>;

// Where the settings come from: the config file (-F; none: the defaults),
// the flags over it, and -v, which raises the log level over the file's.
struct ConfigSources {
  std::optional<std::string> file;
  FlagValues flags;
  uint32_t verbose = 0;
};

// Reads the config file and applies the flags over it, then -v. A file that
// cannot be read or has a bad line is the status (naming file:line); a bad
// flag value is added to `errors` (naming its key) and the others apply.
Status load_config(const ConfigSources& sources, SmConfig& config, std::vector<std::string>& errors);

// The partitions file at `path`, read: null when `path` is empty, or when it
// is `default_path` and absent there (OpenSM then applies its Default
// partition: every port a full member). A file named otherwise (-P, the
// config key) must be there; a bad one is an error naming file:line.
Result<std::shared_ptr<const PartitionConfig>> load_partitions(
    const std::string& path, std::string_view default_path = default_partition_config_file);
// The partitions file the config names (partition_config_file).
Result<std::shared_ptr<const PartitionConfig>> load_partitions(const SmConfig& config);

// The files the manager is started with besides the config.
struct RunInputs {
  routing::EngineSettings engines;  // root_guid_file, lfts_file, and torus_config when torus-2QoS is listed
  std::shared_ptr<const PartitionConfig> partitions;  // null: OpenSM's Default partition
  std::shared_ptr<const QosPolicy> qos_policy;        // null: none
};
// Reads them in that order; the first that fails is the error.
Result<RunInputs> load_run_inputs(const SmConfig& config);

// The SM cache in cache_dir (guid2lid, switch tables, port settings): what
// is there, each problem logged as a warning; the GUID-to-LID map left out
// unless honor_guid2lid_file.
SweepState load_run_cache(const SmConfig& config, LogSink& log);

}  // namespace ibsm
