#include "sm/config/config_reload.h"

#include <fmt/format.h>

namespace ibsm {

std::vector<ConfigChange> diff_config(const SmConfig& current, const SmConfig& next) {
  std::vector<ConfigChange> changes;
  for (const ConfigKey& k : config_keys()) {
    std::string before = k.get(current);
    std::string after = k.get(next);
    if (before != after) changes.push_back({&k, std::move(before), std::move(after)});
  }
  return changes;
}

SmConfig apply_reloadable(const SmConfig& current, const SmConfig& next) {
  SmConfig merged = current;
  // Through the table's own getter and setter: a value the getter wrote the
  // setter reads back (the round-trip the config tests check).
  for (const ConfigKey& k : config_keys())
    if (k.hot_reload) (void)k.set(merged, k.get(next));
  return merged;
}

std::string restart_needed_message(const ConfigChange& change) {
  return fmt::format("{}: needs a restart; kept {} (file says {})", change.key->key,
                     change.old_value.empty() ? "(null)" : change.old_value,
                     change.new_value.empty() ? "(null)" : change.new_value);
}

}  // namespace ibsm
