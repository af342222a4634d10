#include "tools/os/engine_files.h"

#include <memory>
#include <sstream>

#include "routing/guid_list.h"
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

}  // namespace ibsm
