#include "tools/os/run_inputs.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "tools/os/engine_files.h"
#include "tools/os/files.h"
#include "tools/os/qos_policy_file.h"
#include "tools/os/sm_cache.h"

namespace ibsm {

Status load_config(const ConfigSources& sources, SmConfig& config, std::vector<std::string>& errors) {
  if (sources.file) {
    auto text = read_text_file(*sources.file);
    if (!text.ok()) return text.status();
    std::istringstream in(*text);
    IBSM_RETURN_IF_ERROR(read_config(in, *sources.file, config));
  }
  for (const auto& [key, value] : sources.flags) {
    Status s = set_config_value(config, key, value);
    if (!s.ok()) errors.push_back(s.message());  // names the key
  }
  config.log_level = std::min<uint32_t>(config.log_level + sources.verbose, 4);
  return {};
}

Result<std::shared_ptr<const PartitionConfig>> load_partitions(const std::string& path, std::string_view default_path) {
  if (path.empty()) return std::shared_ptr<const PartitionConfig>();
  std::error_code ec;
  if (path == default_path && !std::filesystem::exists(path, ec)) return std::shared_ptr<const PartitionConfig>();
  auto text = read_text_file(path);
  if (!text.ok()) return text.status();
  std::istringstream in(*text);
  auto read = read_partitions_conf(in, path);
  if (!read.ok()) return read.status();
  return std::make_shared<const PartitionConfig>(std::move(*read));
}

Result<std::shared_ptr<const PartitionConfig>> load_partitions(const SmConfig& config) {
  return load_partitions(config.partition_config_file);
}

Result<RunInputs> load_run_inputs(const SmConfig& config) {
  RunInputs in;
  auto engines = load_engine_files(config.root_guid_file, config.lfts_file);
  if (!engines.ok()) return engines.status();
  if (config.routing_engine.find("torus-2QoS") != std::string::npos)
    IBSM_RETURN_IF_ERROR(load_torus_config(config.torus_config, config.torus_config != SmConfig{}.torus_config, *engines));
  in.engines = std::move(*engines);
  auto partitions = load_partitions(config);
  if (!partitions.ok()) return partitions.status();
  in.partitions = std::move(*partitions);
  auto qos_policy = load_qos_policy(config);
  if (!qos_policy.ok()) return qos_policy.status();
  in.qos_policy = std::move(*qos_policy);
  return in;
}

SweepState load_run_cache(const SmConfig& config, LogSink& log) {
  SweepState state;
  std::vector<std::string> warnings;
  if (Status s = load_sm_cache(config.cache_dir, state, warnings); !s.ok())
    ibsm::log(log, LogLevel::warn, Subsystem::tools, "{}", s.message());
  for (const auto& w : warnings) ibsm::log(log, LogLevel::warn, Subsystem::tools, "{}", w);
  if (!config.honor_guid2lid_file) state.guid2lid.clear();
  return state;
}

}  // namespace ibsm
