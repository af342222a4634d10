#include "tools/os/sm_cache.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "mad/base/text.h"

#include "tools/os/files.h"

namespace ibsm {
namespace {

constexpr const char* kGuid2Lid = "guid2lid";
// OpenSM's guid2mkey (sm/fabric/m_keys.h): the M_Key each port holds.
constexpr const char* kGuid2MKey = "guid2mkey";
// One line per switch: "0x<guid> <lid> <top> <hex bytes of the LFT>".
constexpr const char* kSwitchTables = "ibsm-switch-tables";
// One line per port: "0x<node guid> <port> <asked> <held>", each of the last
// two the managed PortInfo fields as comma-separated hex (see PortMemory).
constexpr const char* kPortSettings = "ibsm-port-settings";

Status write_atomically(const std::filesystem::path& path, const std::string& text) {
  return write_file_atomically(path.string(), text);
}

// One switch's line of the tables file; the table as two hex digits per entry.
void write_switch_line(const PutText& put, Guid guid, const SwitchMemory& m, std::string& buffer) {
  static constexpr char kHex[] = "0123456789abcdef";
  buffer.clear();  // the line's buffer is reused from switch to switch
  fmt::format_to(std::back_inserter(buffer), "0x{:016x} {} {} ", guid.value, m.lid.value, m.linear_fdb_top);
  const size_t head = buffer.size();
  buffer.resize(head + 2 * m.lft.size() + 1);
  for (size_t i = 0; i < m.lft.size(); ++i) {
    buffer[head + 2 * i] = kHex[m.lft[i] >> 4];
    buffer[head + 2 * i + 1] = kHex[m.lft[i] & 0xF];
  }
  buffer.back() = '\n';
  put(buffer);
}

// Calls fn(line, number) for every line of `text` that is neither blank
// nor a '#' comment: the shape of every cache file.
template <typename Fn>
void for_each_record(const std::string& text, Fn&& fn) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    fn(line, number);
  }
}

void parse_switch_tables(const std::string& text, const std::string& source, SweepState& state,
                         std::vector<std::string>& warnings) {
  for_each_record(text, [&](const std::string& line, int number) {
    std::istringstream fields(line);
    std::string guid, hex;
    unsigned lid = 0, top = 0;
    if (!(fields >> guid >> lid >> top >> hex) || hex.size() % 2 != 0 || hex.size() / 2 != size_t{top} + 1 ||
        lid > 0xFFFF || top > 0xFFFF) {
      warnings.push_back(fmt::format("{}:{}: malformed switch table line, ignored", source, number));
      return;
    }
    SwitchMemory m;
    m.lid = Lid{static_cast<uint16_t>(lid)};
    m.linear_fdb_top = static_cast<uint16_t>(top);
    m.lft.resize(hex.size() / 2);
    // Two hex digits per entry, read directly: sscanf scans the rest of its
    // string on every call, which on 42k-LID lines made a restart quadratic.
    bool ok = true;
    for (size_t i = 0; i < m.lft.size() && ok; ++i) {
      const int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
      ok = high >= 0 && low >= 0;
      m.lft[i] = static_cast<uint8_t>(high << 4 | low);
    }
    uint64_t g = 0;
    ok = ok && std::sscanf(guid.c_str(), "%" SCNx64, &g) == 1;
    if (!ok) {
      warnings.push_back(fmt::format("{}:{}: malformed switch table line, ignored", source, number));
      return;
    }
    state.switches[Guid{g}] = std::move(m);
  });
}

std::string format_fields(const ManagedPortFields& f) {
  return fmt::format("{:x},{:x},{:x},{:x},{:x},{:x},{:x},{:x},{:x},{:x},{:x}", f.lid, f.lmc, f.master_sm_lid,
                     f.master_sm_sl, f.gid_prefix, f.subnet_timeout, f.hoq_life, f.vl_stall_count, f.neighbor_mtu,
                     f.operational_vls,
                     (f.partition_enforcement_inbound ? 2 : 0) | (f.partition_enforcement_outbound ? 1 : 0));
}

// Ten fields (before partition enforcement was managed) or eleven.
bool parse_fields(const std::string& text, ManagedPortFields& f) {
  unsigned lid, lmc, sm_lid, sm_sl, timeout, hoq, stall, mtu, vls, enforcement = 0;
  uint64_t prefix;
  int used = 0, used11 = 0;
  const int n = std::sscanf(text.c_str(), "%x,%x,%x,%x,%" SCNx64 ",%x,%x,%x,%x,%x%n,%x%n", &lid, &lmc, &sm_lid,
                            &sm_sl, &prefix, &timeout, &hoq, &stall, &mtu, &vls, &used, &enforcement, &used11);
  if (n == 11) used = used11;
  if (n < 10 || static_cast<size_t>(used) != text.size()) return false;
  if (lid > 0xFFFF || sm_lid > 0xFFFF || lmc > 7 || sm_sl > 15 || timeout > 31 || hoq > 31 || stall > 7 || mtu > 15 ||
      vls > 15 || enforcement > 3)
    return false;
  f = ManagedPortFields{static_cast<uint16_t>(lid),    static_cast<uint8_t>(lmc),     static_cast<uint16_t>(sm_lid),
                        static_cast<uint8_t>(sm_sl),   prefix,                        static_cast<uint8_t>(timeout),
                        static_cast<uint8_t>(hoq),     static_cast<uint8_t>(stall),   static_cast<uint8_t>(mtu),
                        static_cast<uint8_t>(vls),     (enforcement & 2) != 0,        (enforcement & 1) != 0};
  return true;
}

void parse_port_settings(const std::string& text, const std::string& source, SweepState& state,
                         std::vector<std::string>& warnings) {
  for_each_record(text, [&](const std::string& line, int number) {
    std::istringstream fields(line);
    std::string guid, asked, held;
    unsigned port = 0;
    uint64_t g = 0;
    PortMemory m;
    if (!(fields >> guid >> port >> asked >> held) || port > 254 ||
        std::sscanf(guid.c_str(), "%" SCNx64, &g) != 1 || !parse_fields(asked, m.asked) ||
        !parse_fields(held, m.held)) {
      warnings.push_back(fmt::format("{}:{}: malformed port settings line, ignored", source, number));
      return;
    }
    state.ports[Guid{g}][static_cast<uint8_t>(port)] = m;
  });
}

// Reads `name` in `base` if it exists and hands its text to `parse`.
template <typename Parse>
Status load_if_present(const std::filesystem::path& base, const char* name, Parse&& parse) {
  std::error_code ec;
  if (!std::filesystem::exists(base / name, ec)) return {};
  auto text = read_text_file((base / name).string());
  if (!text.ok()) return text.status();
  parse(*text, (base / name).string());
  return {};
}

}  // namespace

Status load_sm_cache(const std::string& dir, SweepState& state, std::vector<std::string>& warnings) {
  std::filesystem::path base(dir);
  IBSM_RETURN_IF_ERROR(load_if_present(base, kGuid2Lid, [&](const std::string& text, const std::string& source) {
    std::istringstream in(text);
    auto parsed = parse_guid2lid(in, source);
    if (!parsed.ok()) return warnings.push_back(parsed.status().message());
    state.guid2lid = parsed->entries;
    for (auto& w : parsed->warnings) warnings.push_back(std::move(w));
  }));
  IBSM_RETURN_IF_ERROR(load_if_present(base, kGuid2MKey, [&](const std::string& text, const std::string& source) {
    auto keys = parse_guid2mkey(text, source);
    if (!keys.ok()) return warnings.push_back(keys.status().message() + "; no m_key from it is used");
    state.m_keys = std::move(*keys);
  }));
  IBSM_RETURN_IF_ERROR(load_if_present(base, kSwitchTables, [&](const std::string& text, const std::string& source) {
    parse_switch_tables(text, source, state, warnings);
  }));
  IBSM_RETURN_IF_ERROR(load_if_present(base, kPortSettings, [&](const std::string& text, const std::string& source) {
    parse_port_settings(text, source, state, warnings);
  }));
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
  // Keys are secrets: the file is readable by its owner only.
  IBSM_RETURN_IF_ERROR(write_atomically(base / kGuid2MKey, format_guid2mkey(state.m_keys)));
  std::filesystem::permissions(base / kGuid2MKey, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                               ec);

  // Streamed, a line at a time: the tables of 42k LIDs are some 300 MB of
  // text, which built in one string first cost up to twice that at the peak.
  IBSM_RETURN_IF_ERROR(write_file_atomically((base / kSwitchTables).string(), [&state](const PutText& put) {
    put("# ibsm: what each switch's linear forwarding table holds (guid lid top table)\n");
    std::string line;
    for (const auto& [guid, m] : state.switches)
      if (!m.lft.empty()) write_switch_line(put, guid, m, line);
  }));

  std::string ports = "# ibsm: PortInfo fields asked of each port and what it then held (guid port asked held)\n";
  for (const auto& [guid, by_port] : state.ports)
    for (const auto& [port, m] : by_port)
      ports += fmt::format("0x{:016x} {} {} {}\n", guid.value, port, format_fields(m.asked), format_fields(m.held));
  return write_atomically(base / kPortSettings, ports);
}

}  // namespace ibsm
