#include "tools/os/qos_policy_file.h"

#include <filesystem>
#include <sstream>

#include "tools/os/files.h"

namespace ibsm {

Result<std::shared_ptr<const QosPolicy>> load_qos_policy(const SmConfig& config) {
  const std::string& path = config.qos_policy_file;
  if (!config.qos || path.empty()) return std::shared_ptr<const QosPolicy>();
  std::error_code ec;
  if (path == default_qos_policy_file && !std::filesystem::exists(path, ec)) return std::shared_ptr<const QosPolicy>();
  auto text = read_text_file(path);
  if (!text.ok()) return text.status();
  std::istringstream in(*text);
  auto policy = parse_qos_policy(in, path);
  if (!policy.ok()) return policy.status();
  return std::make_shared<const QosPolicy>(std::move(*policy));
}

}  // namespace ibsm
