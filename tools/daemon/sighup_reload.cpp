#include "tools/daemon/sighup_reload.h"

#include "sm/config/config_reload.h"
#include "tools/os/qos_policy_file.h"

namespace ibsm {

LogLevel log_level_of(uint32_t n) { return static_cast<LogLevel>(n > 4 ? 4 : n); }

void reload_on_hup(const ConfigSources& sources, SmConfig& config, SubnetManager& sm, FilteringLogSink& level_sink) {
  LogSink& log = level_sink;
  sm.request_heavy_sweep();
  SmConfig next;
  std::vector<std::string> bad;
  Status s = load_config(sources, next, bad);
  if (!s.ok() || !bad.empty()) {
    ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGHUP: nothing changed, configuration kept: {}",
              s.ok() ? bad.front() : s.message());
    return;
  }
  auto reread = load_partitions(next);
  if (!reread.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGHUP: nothing changed, partitions kept: {}",
              reread.status().message());
    return;
  }
  auto reread_qos = load_qos_policy(next);
  if (!reread_qos.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGHUP: nothing changed, QoS policy kept: {}",
              reread_qos.status().message());
    return;
  }
  for (const ConfigChange& c : diff_config(config, next)) {
    if (c.key->hot_reload) {
      ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGHUP: {} {} -> {}", c.key->key, c.old_value, c.new_value);
    } else {
      ibsm::log(log, LogLevel::warn, Subsystem::tools, "SIGHUP: {}", restart_needed_message(c));
    }
  }
  config = apply_reloadable(config, next);
  level_sink.set_level(log_level_of(config.log_level));
  sm.set_partitions(std::move(*reread));
  sm.set_qos_policy(std::move(*reread_qos));
  sm.reconfigure(config);
  ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGHUP: heavy sweep, configuration reloaded");
}

}  // namespace ibsm
