#include "tools/os/engine_files.h"

#include <memory>
#include <sstream>

#include <filesystem>
#include <system_error>

#include "routing/guid_list.h"
#include "routing/torus_config.h"
#include "sm/dump/lft_dump.h"
#include "tools/os/files.h"

namespace ibsm {

Result<routing::EngineSettings> load_engine_files(const std::string& root_guid_file, const std::string& lfts_file) {
  routing::EngineSettings settings;
  if (!root_guid_file.empty()) {
    Result<std::string> text = read_text_file(root_guid_file);
    if (!text.ok()) return text.status();
    std::istringstream in(*text);
    Result<std::vector<Guid>> roots = routing::parse_guid_list(in, root_guid_file);
    if (!roots.ok()) return roots.status();
    if (roots->empty()) return invalid_argument_error(root_guid_file + ": lists no GUID");
    settings.updn_roots = std::move(*roots);
  }
  if (!lfts_file.empty()) {
    Result<std::string> text = read_text_file(lfts_file);
    if (!text.ok()) return text.status();
    std::istringstream in(*text);
    Result<LftDump> dump = parse_lft_dump(in, lfts_file);
    if (!dump.ok()) return dump.status();
    if (dump->switches.empty()) return invalid_argument_error(lfts_file + ": lists no switch table");
    settings.lft_file = std::make_shared<const LftDump>(std::move(*dump));
    settings.lft_file_name = lfts_file;
  }
  return settings;
}

Status load_torus_config(const std::string& path, bool must_exist, routing::EngineSettings& settings) {
  if (path.empty()) return {};
  std::error_code ec;
  if (!must_exist && !std::filesystem::exists(path, ec)) return {};
  Result<std::string> text = read_text_file(path);
  if (!text.ok()) return text.status();
  Result<routing::TorusConfig> config = routing::parse_torus_config(*text, path);
  if (!config.ok()) return config.status();
  settings.torus_config = std::make_shared<const routing::TorusConfig>(std::move(*config));
  return {};
}

}  // namespace ibsm
