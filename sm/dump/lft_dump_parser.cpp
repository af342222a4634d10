// parse_lft_dump: see lft_dump.h. Formats: infiniband-diags 44 ibroute.c
// (dump_unicast_tables, dump_lid) and libibmad's portid2str for the switch
// address; OpenSM 3.3 osm_dump.c (dump_ucast_lfts).
#include <string>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "mad/base/text.h"

#include "sm/dump/lft_dump.h"

namespace ibsm {
namespace {


// The leading run of characters of `text` that satisfy `keep`.
template <typename Pred>
std::string_view leading(std::string_view text, Pred keep) {
  size_t n = 0;
  while (n < text.size() && keep(text[n])) ++n;
  return text.substr(0, n);
}

bool is_hex_digit(char c) { return hex_digit(c) >= 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The words of a line, blanks collapsed: "Lid  Out   Destination" -> "Lid Out Destination".
std::string words(std::string_view text) {
  std::string out;
  bool gap = false;
  for (char c : trim(text)) {
    if (is_space(c)) {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += ' ';
    gap = false;
    out += c;
  }
  return out;
}

class LftDumpParser {
 public:
  explicit LftDumpParser(std::string_view source) : source_(source) {}

  Result<LftDump> parse(std::istream& in) {
    std::string line;
    while (std::getline(in, line)) {
      ++line_no_;
      Status s = parse_line(line);
      if (!s.ok()) return s;
    }
    if (in.bad()) return error("read error");
    return std::move(dump_);
  }

 private:
  Status error(std::string_view problem) const {
    return invalid_argument_error(fmt::format("{}:{}: {}", source_, line_no_, problem));
  }

  Status parse_line(std::string_view raw) {
    const std::string_view text = trim(raw);
    if (text.empty() || text.front() == '#') return {};
    if (text.starts_with("Unicast lids")) return parse_header(text);
    if (text.starts_with("Multicast mlids")) {
      return error("a multicast forwarding table; this reader takes unicast LFTs (dump them without -M)");
    }
    if (text.starts_with("0x")) return parse_entry(text);
    if (text.starts_with("ibwarn:") || text.starts_with("*** WARNING ***")) return {};
    const std::string w = words(text);
    if (w == "Lid Out Destination" || w == "Port Info") return {};
    if (w.ends_with(" lids dumped")) return parse_trailer(w);
    return error(fmt::format("unrecognized line {}", quoted(text)));
  }

  // "Unicast lids [<first>-<last>] of switch <address> guid 0x<guid> (<description>):"
  Status parse_header(std::string_view text) {
    constexpr std::string_view kOpen = "Unicast lids [";
    std::string_view rest = text.substr(kOpen.size());
    if (!text.starts_with(kOpen)) return error("switch header: expected 'Unicast lids [' ");
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return error("switch header: no ']' after the LID range");
    const std::string_view range = rest.substr(0, close);
    const size_t dash = range.find('-');
    if (dash == std::string_view::npos) return error(fmt::format("switch header: bad LID range {}", quoted(range)));
    const std::string_view first_text = range.substr(0, dash), last_text = range.substr(dash + 1);
    // dump_lfts prints the range in hex, OpenSM in decimal.
    const bool hex = first_text.starts_with("0x");
    const LftDumpFormat format = hex ? LftDumpFormat::diag_tools : LftDumpFormat::opensm;
    const auto first = parse_unsigned(first_text, hex ? Notation::hex_0x : Notation::decimal, Lid::max_unicast);
    const auto last = parse_unsigned(last_text, hex ? Notation::hex_0x : Notation::decimal, Lid::max_unicast);
    if (!first || !last || *first > *last) {
      return error(fmt::format("switch header: bad LID range {} (unicast LIDs run to {:#x})", quoted(range),
                               Lid::max_unicast));
    }
    if (dump_.format && *dump_.format != format) {
      return error(fmt::format("switch header in {} format in a {} file", lft_dump_format_name(format),
                               lft_dump_format_name(*dump_.format)));
    }

    rest = rest.substr(close + 1);
    constexpr std::string_view kSwitch = " of switch ";
    if (!rest.starts_with(kSwitch)) return error("switch header: expected 'of switch' after the LID range");
    rest.remove_prefix(kSwitch.size());
    constexpr std::string_view kGuid = " guid 0x";
    const size_t guid_at = rest.find(kGuid);
    if (guid_at == std::string_view::npos) return error("switch header: no 'guid 0x'");
    LftDumpSwitch sw;
    IBSM_RETURN_IF_ERROR(parse_address(rest.substr(0, guid_at), sw));
    rest.remove_prefix(guid_at + kGuid.size());
    const std::string_view guid_text = leading(rest, is_hex_digit);
    const auto guid = parse_guid(guid_text, Notation::hex);
    if (!guid) return error(fmt::format("switch header: bad node guid {}", quoted(guid_text)));
    rest.remove_prefix(guid_text.size());
    if (!rest.starts_with(" (") || !rest.ends_with("):")) {
      return error("switch header: expected ' (<description>):' after the guid");
    }
    std::string_view description = rest.substr(2, rest.size() - 4);
    if (format == LftDumpFormat::opensm && description.size() >= 2 && description.front() == '\'' &&
        description.back() == '\'') {
      description = description.substr(1, description.size() - 2);
    }

    sw.node_guid = *guid;
    if (const auto seen = line_of_switch_.find(sw.node_guid); seen != line_of_switch_.end()) {
      return error(fmt::format("switch {} listed again (first at line {})", sw.node_guid, seen->second));
    }
    sw.description = std::string(description);
    sw.first_lid = static_cast<uint16_t>(*first);
    sw.last_lid = static_cast<uint16_t>(*last);
    sw.line = line_no_;
    line_of_switch_.emplace(sw.node_guid, line_no_);
    dump_.format = format;
    dump_.switches.push_back(std::move(sw));
    section_open_ = true;
    seen_lids_.assign(size_t{dump_.switches.back().last_lid} + 1, false);
    return {};
  }

  // How the tool reached the switch (libibmad portid2str): "Lid 3", "Lid 3
  // Gid ...", "Lid 3 DR path ...", "DR path slid 0; dlid 0; 0,3".
  Status parse_address(std::string_view address, LftDumpSwitch& sw) {
    bool known = false;
    if (address.starts_with("Lid ")) {
      const std::string_view digits = leading(address.substr(4), is_digit);
      const auto lid = parse_unsigned(digits, Notation::decimal, Lid::max_unicast);
      if (!lid) return error(fmt::format("switch header: bad switch lid in {}", quoted(address)));
      if (*lid != 0) sw.lid = Lid{static_cast<uint16_t>(*lid)};  // OpenSM prints "Lid 0" for none
      known = true;
    }
    constexpr std::string_view kDr = "DR path ";
    if (const size_t at = address.find(kDr); at != std::string_view::npos) {
      std::string_view path = address.substr(at + kDr.size());
      // drpath2str puts "slid N; dlid N; " before the hops when it has them.
      if (const size_t semi = path.rfind("; "); semi != std::string_view::npos) path = path.substr(semi + 2);
      DrPath dr;
      if (!DrPath::parse(trim(path), dr)) return error(fmt::format("switch header: bad DR path {}", quoted(path)));
      sw.dr_path = dr;
      known = true;
    }
    if (!known) return error(fmt::format("switch header: unrecognized switch address {}", quoted(address)));
    return {};
  }

  // "0x0004 003 : (Channel Adapter portguid 0x...: 'desc')", "0x0004 003 #
  // ...", or "0x0004 003" (brief).
  Status parse_entry(std::string_view text) {
    if (dump_.switches.empty()) return error("lid entry before any switch header");
    if (!section_open_) return error("lid entry after the switch's 'lids dumped' line");
    LftDumpSwitch& sw = dump_.switches.back();

    const std::string_view lid_text = leading(text.substr(2), is_hex_digit);
    std::string_view rest = text.substr(2 + lid_text.size());
    const auto lid = parse_unsigned(lid_text, Notation::hex, Lid::max_unicast);
    if (!lid || rest.empty() || !is_space(rest.front())) {
      return error(fmt::format("bad lid in {}", quoted(text)));
    }
    rest = trim(rest);
    const std::string_view port_text = leading(rest, is_digit);
    const auto port = parse_unsigned(port_text, Notation::decimal, 255);
    rest.remove_prefix(port_text.size());
    if (!port || (!rest.empty() && !is_space(rest.front()))) return error(fmt::format("bad port in {}", quoted(text)));
    if (*lid < sw.first_lid || *lid > sw.last_lid) {
      return error(fmt::format("lid {:#06x} outside the header's range {:#x}-{:#x}", *lid, sw.first_lid, sw.last_lid));
    }
    if (seen_lids_[*lid]) return error(fmt::format("lid {:#06x} listed twice for switch {}", *lid, sw.node_guid));
    seen_lids_[*lid] = true;

    LftDumpEntry entry{.lid = Lid{static_cast<uint16_t>(*lid)}, .port = static_cast<uint8_t>(*port), .line = line_no_};
    constexpr std::string_view kPortGuid = "portguid 0x";
    if (const size_t at = rest.find(kPortGuid); at != std::string_view::npos) {
      const std::string_view guid_text = leading(rest.substr(at + kPortGuid.size()), is_hex_digit);
      const auto guid = parse_guid(guid_text, Notation::hex);
      if (!guid) return error(fmt::format("bad port guid in {}", quoted(text)));
      entry.port_guid = *guid;
    }
    sw.entries.push_back(entry);
    return {};
  }

  // "6 valid lids dumped" (dump_lfts: the entries listed) or "6 lids dumped"
  // (dump_lfts -a: the entries listed; OpenSM: the top LID).
  Status parse_trailer(const std::string& text) {
    if (dump_.switches.empty() || !section_open_) return error(fmt::format("{} outside a switch section", quoted(text)));
    const LftDumpSwitch& sw = dump_.switches.back();
    const std::string_view count_text = leading(text, is_digit);
    const std::string_view tail = std::string_view(text).substr(count_text.size());
    const auto count = parse_unsigned(count_text, Notation::decimal, UINT32_MAX);
    if (!count || (tail != " lids dumped" && tail != " valid lids dumped")) {
      return error(fmt::format("unrecognized line {}", quoted(text)));
    }
    const bool opensm = *dump_.format == LftDumpFormat::opensm;
    const uint64_t expected = opensm ? sw.last_lid : sw.entries.size();
    if (*count != expected) {
      return error(fmt::format("{} but the section {} {} (cut or edited file?)", quoted(text),
                               opensm ? "ends at lid" : "lists", expected));
    }
    section_open_ = false;
    return {};
  }

  std::string_view source_;
  size_t line_no_ = 0;
  LftDump dump_;
  bool section_open_ = false;
  std::vector<bool> seen_lids_;  // LIDs of the current switch listed so far
  std::unordered_map<Guid, size_t> line_of_switch_;
};

}  // namespace

const char* lft_dump_format_name(LftDumpFormat format) {
  switch (format) {
    case LftDumpFormat::diag_tools: return "dump_lfts";
    case LftDumpFormat::opensm: return "opensm-lfts.dump";
  }
  return "?";
}

std::vector<uint8_t> LftDumpSwitch::table() const {
  std::vector<uint8_t> lft(size_t{last_lid} + 1, 0xFF);
  for (const LftDumpEntry& e : entries) {
    if (e.lid.value < lft.size()) lft[e.lid.value] = e.port;
  }
  return lft;
}

const LftDumpSwitch* LftDump::find(Guid node_guid) const {
  for (const LftDumpSwitch& sw : switches) {
    if (sw.node_guid == node_guid) return &sw;
  }
  return nullptr;
}

Result<LftDump> parse_lft_dump(std::istream& in, std::string_view source_name) {
  return LftDumpParser(source_name).parse(in);
}

}  // namespace ibsm
