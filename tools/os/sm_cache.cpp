#include "tools/os/sm_cache.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tools/os/files.h"

namespace ibsm {
namespace {

constexpr const char* kGuid2Lid = "guid2lid";
// One line per switch: "0x<guid> <lid> <top> <hex bytes of the LFT>".
constexpr const char* kSwitchTables = "ibsm-switch-tables";

Status write_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return unavailable_error(fmt::format("cannot create {}: {}", tmp.string(), std::strerror(errno)));
    out << text;
    out.close();
    if (!out) return unavailable_error(fmt::format("cannot write {}", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return unavailable_error(fmt::format("cannot rename {}: {}", tmp.string(), ec.message()));
  return {};
}

void parse_switch_tables(const std::string& text, const std::string& source, SweepState& state,
                         std::vector<std::string>& warnings) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string guid, hex;
    unsigned lid = 0, top = 0;
    if (!(fields >> guid >> lid >> top >> hex) || hex.size() % 2 != 0 || hex.size() / 2 != size_t{top} + 1 ||
        lid > 0xFFFF || top > 0xFFFF) {
      warnings.push_back(fmt::format("{}:{}: malformed switch table line, ignored", source, number));
      continue;
    }
    SwitchMemory m;
    m.lid = Lid{static_cast<uint16_t>(lid)};
    m.linear_fdb_top = static_cast<uint16_t>(top);
    m.lft.resize(hex.size() / 2);
    bool ok = true;
    for (size_t i = 0; i < m.lft.size() && ok; ++i) {
      unsigned v = 0;
      ok = std::sscanf(hex.c_str() + 2 * i, "%2x", &v) == 1;
      m.lft[i] = static_cast<uint8_t>(v);
    }
    uint64_t g = 0;
    ok = ok && std::sscanf(guid.c_str(), "%" SCNx64, &g) == 1;
    if (!ok) {
      warnings.push_back(fmt::format("{}:{}: malformed switch table line, ignored", source, number));
      continue;
    }
    state.switches[Guid{g}] = std::move(m);
  }
}

}  // namespace

Status load_sm_cache(const std::string& dir, SweepState& state, std::vector<std::string>& warnings) {
  std::filesystem::path base(dir);
  std::error_code ec;
  if (std::filesystem::exists(base / kGuid2Lid, ec)) {
    auto text = read_text_file((base / kGuid2Lid).string());
    if (!text.ok()) return text.status();
    std::istringstream in(*text);
    auto parsed = parse_guid2lid(in, (base / kGuid2Lid).string());
    if (!parsed.ok()) {
      warnings.push_back(parsed.status().message());
    } else {
      state.guid2lid = parsed->entries;
      for (auto& w : parsed->warnings) warnings.push_back(std::move(w));
    }
  }
  if (std::filesystem::exists(base / kSwitchTables, ec)) {
    auto text = read_text_file((base / kSwitchTables).string());
    if (!text.ok()) return text.status();
    parse_switch_tables(*text, (base / kSwitchTables).string(), state, warnings);
  }
  return {};
}

Status save_sm_cache(const std::string& dir, const SweepState& state) {
  std::filesystem::path base(dir);
  std::error_code ec;
  std::filesystem::create_directories(base, ec);
  if (ec) return unavailable_error(fmt::format("cannot create {}: {}", dir, ec.message()));
  std::ostringstream g2l;
  write_guid2lid(state.guid2lid, g2l);
  IBSM_RETURN_IF_ERROR(write_atomically(base / kGuid2Lid, g2l.str()));

  std::string tables = "# ibsm: what each switch's linear forwarding table holds (guid lid top table)\n";
  for (const auto& [guid, m] : state.switches) {
    if (m.lft.empty()) continue;
    tables += fmt::format("0x{:016x} {} {} ", guid.value, m.lid.value, m.linear_fdb_top);
    for (uint8_t b : m.lft) tables += fmt::format("{:02x}", b);
    tables += '\n';
  }
  return write_atomically(base / kSwitchTables, tables);
}

}  // namespace ibsm
