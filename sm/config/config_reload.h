// What a SIGHUP does with a re-read configuration: which keys changed, which
// of them take effect now (the table's hot_reload flag) and which wait for a
// restart. The daemon logs the refused ones and hands the merged
// configuration to the manager; tests drive it without signals.
#pragma once

#include <string>
#include <vector>

#include "sm/config/sm_config.h"

namespace ibsm {

// One key whose value differs between two configurations, spelled as the
// file spells it.
struct ConfigChange {
  const ConfigKey* key;
  std::string old_value;
  std::string new_value;
};

// The keys that differ, in table order.
std::vector<ConfigChange> diff_config(const SmConfig& current, const SmConfig& next);

// `current` with the reloadable keys taken from `next`: what runs after a
// SIGHUP. Restart-only keys keep their current values.
SmConfig apply_reloadable(const SmConfig& current, const SmConfig& next);

// The log line for a change SIGHUP does not apply, e.g.
// "sm_key: needs a restart; kept 0x0000000000000001" (OpenSM's wording for
// the same case is "cannot be changed on the fly").
std::string restart_needed_message(const ConfigChange& change);

}  // namespace ibsm
