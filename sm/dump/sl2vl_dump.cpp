#include "sm/dump/sl2vl_dump.h"

#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm {

void write_sl2vl_dump(std::span<const Sl2VlDumpEntry> tables, std::string_view engine, std::ostream& out) {
  out << fmt::format("# ibsm sl2vl tables: engine {}; NODEGUID INPORT OUTPORT VL-of-SL0..SL15\n",
                     engine.empty() ? "unknown" : engine);
  std::string line;
  for (const Sl2VlDumpEntry& t : tables) {
    line = fmt::format("0x{:016x} {} {}", t.node_guid.value, t.in_port, t.out_port);
    for (uint8_t vl : t.vl_of_sl) line += fmt::format(" {}", vl & 0x0F);
    line += '\n';
    out << line;
  }
}

Result<Sl2VlDump> parse_sl2vl_dump(std::istream& in, std::string_view source) {
  Sl2VlDump dump;
  std::set<std::tuple<uint64_t, uint8_t, uint8_t>> seen;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    const std::vector<std::string_view> words =
        split_words(std::string_view(line.data(), hash == std::string::npos ? line.size() : hash));
    if (words.empty()) continue;
    const auto bad = [&](std::string_view what) {
      return invalid_argument_error(fmt::format("{}:{}: {}", source, number, what));
    };
    if (words.size() != 19) return bad("expected NODEGUID INPORT OUTPORT and 16 VLs");
    Sl2VlDumpEntry entry;
    entry.line = number;
    const auto guid = words[0].starts_with("0x") ? parse_guid(words[0], Notation::c) : std::nullopt;
    if (!guid || guid->is_zero()) return bad("NODEGUID is no 0x node guid");
    entry.node_guid = *guid;
    // Port numbers are 0..254 (IBA 14.2.5.8: the input and output port of the table).
    const auto in_port = parse_unsigned(words[1], Notation::c, 254);
    if (!in_port) return bad("INPORT is not 0-254");
    entry.in_port = static_cast<uint8_t>(*in_port);
    const auto out_port = parse_unsigned(words[2], Notation::c, 254);
    if (!out_port) return bad("OUTPORT is not 0-254");
    entry.out_port = static_cast<uint8_t>(*out_port);
    for (size_t sl = 0; sl < 16; ++sl) {
      const auto vl = parse_unsigned(words[3 + sl], Notation::c, 15);
      if (!vl) return bad(fmt::format("the VL of SL {} is not 0-15", sl));
      entry.vl_of_sl[sl] = static_cast<uint8_t>(*vl);
    }
    if (!seen.emplace(entry.node_guid.value, entry.in_port, entry.out_port).second)
      return bad(fmt::format("the table of 0x{:016x} in {} out {} is listed twice", entry.node_guid.value,
                             entry.in_port, entry.out_port));
    dump.tables.push_back(entry);
  }
  return dump;
}

}  // namespace ibsm
