#include "sm/dump/path_sl_dump.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm {

namespace {

// Every LID a port owns, of every port that owns any: the ends of the paths.
std::vector<uint16_t> path_ends(const Fabric& fabric) {
  std::vector<uint16_t> lids;
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    const uint8_t first = node.is_switch() ? 0 : 1, last = node.is_switch() ? 0 : node.num_ports;
    for (uint8_t p = first; p <= last; ++p) {
      const Port& port = node.port(p);
      for (uint32_t k = 0; port.base_lid.value != 0 && k < (1u << port.lmc); ++k) {
        if (port.base_lid.value + k <= Lid::max_unicast) lids.push_back(static_cast<uint16_t>(port.base_lid.value + k));
      }
    }
  }
  return lids;
}

}  // namespace

uint8_t PathSlDump::sl(Lid source, Lid destination) const {
  const auto it = sls.find(uint32_t{source.value} << 16 | destination.value);
  return it == sls.end() ? 0 : it->second;
}

void write_path_sl_dump(const Fabric& fabric, const std::function<uint8_t(Lid, Lid)>& path_sl,
                        std::string_view engine, std::ostream& out) {
  out << fmt::format("# ibsm path sls: engine {}; SLID DLID SL, one path a line; unlisted paths are SL 0\n",
                     engine.empty() ? "unknown" : engine);
  if (!path_sl) return;
  const std::vector<uint16_t> ends = path_ends(fabric);
  std::string line;
  for (uint16_t s : ends) {
    for (uint16_t d : ends) {
      if (s == d) continue;
      const uint8_t sl = path_sl(Lid{s}, Lid{d}) & 0x0F;
      if (sl == 0) continue;
      line = fmt::format("{} {} {}\n", s, d, sl);
      out << line;
    }
  }
}

Result<PathSlDump> parse_path_sl_dump(std::istream& in, std::string_view source) {
  PathSlDump dump;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    const std::vector<std::string_view> words =
        split_words(std::string_view(line.data(), hash == std::string::npos ? line.size() : hash));
    if (words.empty()) continue;
    const auto bad = [&](std::string_view what) {
      return invalid_argument_error(fmt::format("{}:{}: {}", source, number, what));
    };
    if (words.size() != 3) return bad("expected SLID DLID SL");
    const auto slid = parse_unsigned(words[0], Notation::c, Lid::max_unicast);
    if (!slid || *slid == 0) return bad("SLID is no unicast lid");
    const auto dlid = parse_unsigned(words[1], Notation::c, Lid::max_unicast);
    if (!dlid || *dlid == 0) return bad("DLID is no unicast lid");
    const auto sl = parse_unsigned(words[2], Notation::c, 15);
    if (!sl) return bad("SL is not 0-15");
    const auto [it, fresh] = dump.sls.emplace(static_cast<uint32_t>(*slid << 16 | *dlid), static_cast<uint8_t>(*sl));
    if (!fresh && it->second != *sl) return bad(fmt::format("path {} -> {} is listed twice", *slid, *dlid));
    if (*sl == 0) dump.sls.erase(it);
  }
  return dump;
}

}  // namespace ibsm
