#include "tools/os/sm_cache.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <sstream>
#include <thread>

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
// Changes to the switch tables since the last full save (SmCacheSaver), a
// record a line after a "# generation N" line that names the tables' base:
//   T 0x<guid> <lid> <top> <hex bytes>   a whole table, as in the base
//   B 0x<guid> <block> <hex bytes>       one block of 64 entries (the last may be shorter)
//   D 0x<guid>                           the switch's table is no longer known
constexpr const char* kSwitchJournal = "ibsm-switch-tables.journal";
constexpr const char* kGenerationMark = "# generation ";
constexpr size_t kBlock = 64;
// One line per port: "0x<node guid> <port> <asked> <held>", each of the last
// two the managed PortInfo fields as comma-separated hex (see PortMemory).
constexpr const char* kPortSettings = "ibsm-port-settings";

Status write_atomically(const std::filesystem::path& path, const std::string& text) {
  return write_file_atomically(path.string(), text);
}

// One switch's line of the tables file; the table as two hex digits per entry.
void write_switch_line(const PutText& put, Guid guid, const SwitchMemory& m, std::string& buffer) {
  buffer.clear();  // the line's buffer is reused from switch to switch
  fmt::format_to(std::back_inserter(buffer), "0x{:016x} {} {} ", guid.value, m.lid.value, m.linear_fdb_top);
  append_hex_bytes(buffer, m.lft.entries());
  buffer += '\n';
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

// Two hex digits per byte into `out` (as many bytes as `out` holds), read
// directly: sscanf scans the rest of its string on every call, which on
// 42k-LID lines made a restart quadratic.
bool decode_hex(std::string_view hex, std::span<uint8_t> out) {
  if (hex.size() != 2 * out.size()) return false;
  for (size_t i = 0; i < out.size(); ++i) {
    const int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    out[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return true;
}

// "0x" and hex digits, nothing else (the project's one GUID parser).
bool parse_guid_field(const std::string& text, Guid& guid) {
  const std::optional<Guid> g = parse_guid(text, Notation::hex_0x);
  if (g) guid = *g;
  return g.has_value();
}

// "0x<guid> <lid> <top> <hex>": a line of the tables, or a journal's T record.
bool parse_switch_record(std::istringstream& fields, Guid& guid, SwitchMemory& m) {
  std::string g, hex;
  unsigned lid = 0, top = 0;
  if (!(fields >> g >> lid >> top >> hex) || lid > 0xFFFF || top > 0xFFFF || hex.size() != 2 * (size_t{top} + 1) ||
      !parse_guid_field(g, guid))
    return false;
  m.lid = Lid{static_cast<uint16_t>(lid)};
  m.linear_fdb_top = static_cast<uint16_t>(top);
  std::vector<uint8_t>& lft = m.lft.edit();
  lft.resize(size_t{top} + 1);
  return decode_hex(hex, lft);
}

// The generation a tables file or journal names in its "# generation N"
// line (0: none, a cache from before the journal).
uint64_t generation_of(const std::string& text) {
  const size_t at = text.find(kGenerationMark);
  if (at == std::string::npos || at > 512) return 0;
  return scan_unsigned(std::string_view(text).substr(at + std::strlen(kGenerationMark)), Notation::decimal).value;
}

void parse_switch_tables(const std::string& text, const std::string& source, SweepState& state,
                         std::vector<std::string>& warnings) {
  for_each_record(text, [&](const std::string& line, int number) {
    std::istringstream fields(line);
    Guid guid;
    SwitchMemory m;
    if (!parse_switch_record(fields, guid, m)) {
      warnings.push_back(fmt::format("{}:{}: malformed switch table line, ignored", source, number));
      return;
    }
    state.switches[guid] = std::move(m);
  });
}

// Applies the journal's records to the tables loaded from its base. A
// record that cannot be applied (torn by a crash, or naming a table the
// base lacks) leaves the tables unknown: every one is dropped, so the next
// sweep reads the switches back instead of trusting a stale entry.
void apply_switch_journal(const std::string& text, const std::string& source, uint64_t base_generation,
                          SweepState& state, std::vector<std::string>& warnings) {
  const uint64_t generation = generation_of(text);
  if (generation == 0 || generation != base_generation) return;  // a full save's leftover: the base is newer
  bool damaged = false;
  for_each_record(text, [&](const std::string& line, int number) {
    if (damaged) return;
    std::istringstream fields(line);
    std::string kind, g;
    Guid guid;
    bool ok = false;
    if (!(fields >> kind)) {
    } else if (kind == "T") {
      SwitchMemory m;
      ok = parse_switch_record(fields, guid, m);
      if (ok) state.switches[guid] = std::move(m);
    } else if (kind == "B") {
      size_t block = 0;
      std::string hex;
      auto it = state.switches.end();
      ok = static_cast<bool>(fields >> g >> block >> hex) && parse_guid_field(g, guid) &&
           (it = state.switches.find(guid)) != state.switches.end() && block * kBlock < it->second.lft.size();
      if (ok) {
        const size_t n = std::min(kBlock, it->second.lft.size() - block * kBlock);
        ok = decode_hex(hex, std::span(it->second.lft.edit()).subspan(block * kBlock, n));
      }
    } else if (kind == "D") {
      ok = static_cast<bool>(fields >> g) && parse_guid_field(g, guid);
      if (ok) state.switches.erase(guid);
    }
    if (!ok) {
      damaged = true;
      warnings.push_back(fmt::format("{}:{}: malformed journal record; every switch table is dropped (the switches "
                                     "are read back)",
                                     source, number));
    }
  });
  if (damaged) state.switches.clear();
}

uint64_t block_hash(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

// Lower-case hex without leading zeros, as {:x} writes it; by hand because
// the k=34 fabric's 275k ports made fmt's parsing of one format per port a
// leading cost of every save.
void append_hex(std::string& out, uint64_t v) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = kHexDigits[v & 0xF];
    v >>= 4;
  } while (v != 0);
  while (n > 0) out += digits[--n];
}

void append_fields(std::string& out, const ManagedPortFields& f) {
  const uint64_t values[] = {f.lid,          f.lmc,      f.master_sm_lid,  f.master_sm_sl,
                             f.gid_prefix,   f.subnet_timeout, f.hoq_life, f.vl_stall_count,
                             f.neighbor_mtu, f.operational_vls,
                             uint64_t{(f.partition_enforcement_inbound ? 2u : 0u) | (f.partition_enforcement_outbound ? 1u : 0u)}};
  for (size_t i = 0; i < std::size(values); ++i) {
    if (i != 0) out += ',';
    append_hex(out, values[i]);
  }
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

// Everything but the switch tables: guid2lid, guid2mkey, the port settings.
// A full save writes them beside the tables (SmCacheSaver::save).
Status save_other_files(const std::filesystem::path& base, const SweepState& state) {
  std::ostringstream g2l;
  write_guid2lid(state.guid2lid, g2l);
  IBSM_RETURN_IF_ERROR(write_atomically(base / kGuid2Lid, g2l.str()));
  // Keys are secrets: the file is readable by its owner only.
  IBSM_RETURN_IF_ERROR(write_atomically(base / kGuid2MKey, format_guid2mkey(state.m_keys)));
  std::error_code ec;
  std::filesystem::permissions(base / kGuid2MKey, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                               ec);

  // Streamed too: 275k ports on 42k LIDs are some 20 MB of text, built
  // whole at the peak of `ibsm run -o` (in a string that doubles as it grows).
  return write_file_atomically((base / kPortSettings).string(), [&state](const PutText& put) {
    put("# ibsm: PortInfo fields asked of each port and what it then held (guid port asked held)\n");
    std::string chunk;  // some 64 kB a write
    for (const auto& [guid, by_port] : state.ports)
      for (const auto& [port, m] : by_port) {
        fmt::format_to(std::back_inserter(chunk), "0x{:016x} {} ", guid.value, port);
        append_fields(chunk, m.asked);
        chunk += ' ';
        append_fields(chunk, m.held);
        chunk += '\n';
        if (chunk.size() < (1u << 16)) continue;
        put(chunk);
        chunk.clear();
      }
    put(chunk);
  });
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
  uint64_t tables_generation = 0;
  IBSM_RETURN_IF_ERROR(load_if_present(base, kSwitchTables, [&](const std::string& text, const std::string& source) {
    parse_switch_tables(text, source, state, warnings);
    tables_generation = generation_of(text);
  }));
  IBSM_RETURN_IF_ERROR(load_if_present(base, kSwitchJournal, [&](const std::string& text, const std::string& source) {
    apply_switch_journal(text, source, tables_generation, state, warnings);
  }));
  IBSM_RETURN_IF_ERROR(load_if_present(base, kPortSettings, [&](const std::string& text, const std::string& source) {
    parse_port_settings(text, source, state, warnings);
  }));
  return {};
}

Status save_sm_cache(const std::string& dir, const SweepState& state) {
  return SmCacheSaver(/*journal=*/false).save(dir, state);
}

SweepState cached_part(const SweepState& state) {
  SweepState part;
  part.guid2lid = state.guid2lid;
  part.m_keys = state.m_keys;
  part.switches = state.switches;
  part.ports = state.ports;
  return part;
}

Status SmCacheSaver::save(const std::string& dir, const SweepState& state) {
  std::filesystem::path base(dir);
  std::error_code ec;
  std::filesystem::create_directories(base, ec);
  if (ec) return unavailable_error(fmt::format("cannot create {}: {}", dir, ec.message()));

  last_full_ = !keep_hashes_ || generation_ == 0 || dir != dir_;
  Status journal;
  if (!last_full_) {
    const std::string records = journal_records(state, true);
    if (journal_bytes_ + records.size() > base_bytes_ / 4) {
      last_full_ = true;  // the journal would outgrow its use: start afresh
    } else if (!records.empty()) {
      journal = append_file_synced((base / kSwitchJournal).string(), records);
      if (journal.ok()) {
        journal_bytes_ += records.size();
      } else {
        generation_ = 0;  // what the journal holds is unknown now: the next save is a full one
      }
    }
  }
  // A full save writes the switch tables on a thread of their own while the
  // other files are written on this one: at the full LID space the tables
  // are 395 MB of text (0.4 s), the other files 22 MB (0.15 s), and the
  // save is what `ibsm run -o` waits for at its end.
  Status tables;
  std::thread tables_writer;
  if (last_full_) tables_writer = std::thread([&] { tables = save_full(dir, state); });
  Status others = save_other_files(base, state);
  if (tables_writer.joinable()) tables_writer.join();
  IBSM_RETURN_IF_ERROR(journal);
  IBSM_RETURN_IF_ERROR(tables);
  return others;
}

Status SmCacheSaver::save_full(const std::string& dir, const SweepState& state) {
  generation_ = 0;  // until both files are written
  std::filesystem::path base(dir);
  // Any number but the last one's: a journal left from before (a crash
  // between the two writes below) must not match the new tables.
  uint64_t generation = std::random_device{}();
  generation = (generation << 32 | std::random_device{}()) | 1;
  const std::string mark = fmt::format("{}{}\n", kGenerationMark, generation);
  // Streamed, a line at a time: the tables of 42k LIDs are some 300 MB of
  // text, which built in one string first cost up to twice that at the peak.
  size_t bytes = 0;
  IBSM_RETURN_IF_ERROR(write_file_atomically((base / kSwitchTables).string(), [&](const PutText& put) {
    const auto counted = [&](std::string_view text) {
      bytes += text.size();
      put(text);
    };
    counted("# ibsm: what each switch's linear forwarding table holds (guid lid top table)\n");
    counted(mark);
    std::string line;
    for (const auto& [guid, m] : state.switches)
      if (!m.lft.empty()) write_switch_line(counted, guid, m, line);
  }));
  IBSM_RETURN_IF_ERROR(write_atomically(base / kSwitchJournal,
                                        "# ibsm: changes to the switch tables since they were written\n" + mark));
  saved_.clear();
  if (keep_hashes_) (void)journal_records(state, false);  // notes what was saved, block by block
  generation_ = generation;
  dir_ = dir;
  base_bytes_ = bytes;
  journal_bytes_ = 0;
  return {};
}

std::string SmCacheSaver::journal_records(const SweepState& state, bool write) {
  std::string out, line;
  std::vector<uint64_t> hashes;
  for (auto it = saved_.begin(); it != saved_.end();) {
    const auto now = state.switches.find(it->first);
    if (now != state.switches.end() && !now->second.lft.empty()) {
      ++it;
      continue;
    }
    if (write) fmt::format_to(std::back_inserter(out), "D 0x{:016x}\n", it->first.value);
    it = saved_.erase(it);
  }
  for (const auto& [guid, m] : state.switches) {
    if (m.lft.empty()) continue;
    const size_t blocks = (m.lft.size() + kBlock - 1) / kBlock;
    hashes.resize(blocks);
    for (size_t b = 0; b < blocks; ++b)
      hashes[b] = block_hash(m.lft.entries().subspan(b * kBlock, std::min(kBlock, m.lft.size() - b * kBlock)));
    Saved& was = saved_[guid];
    const bool whole = was.lid != m.lid || was.linear_fdb_top != m.linear_fdb_top || was.entries != m.lft.size();
    if (write && whole) {
      out += "T ";
      write_switch_line([&out](std::string_view text) { out += text; }, guid, m, line);
    }
    for (size_t b = 0; write && !whole && b < blocks; ++b) {
      if (hashes[b] == was.block_hash[b]) continue;
      fmt::format_to(std::back_inserter(out), "B 0x{:016x} {} ", guid.value, b);
      append_hex_bytes(out, m.lft.entries().subspan(b * kBlock, std::min(kBlock, m.lft.size() - b * kBlock)));
      out += '\n';
    }
    was.lid = m.lid;
    was.linear_fdb_top = m.linear_fdb_top;
    was.entries = m.lft.size();
    was.block_hash.assign(hashes.begin(), hashes.end());
  }
  return out;
}

}  // namespace ibsm
