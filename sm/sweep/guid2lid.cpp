#include "mad/base/text.h"
#include "sm/sweep/guid2lid.h"

#include <cstdint>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>


namespace ibsm {

namespace {

// Why [min, max] is not a LID block a port can hold, or empty when it is one.
std::string lid_block_problem(uint64_t min, uint64_t max) {
  if (min == 0) return "min lid 0 is not a unicast lid";
  if (max > Lid::max_unicast) return fmt::format("max lid 0x{:x} is above the unicast range (0xbfff)", max);
  if (min > max) return fmt::format("min lid 0x{:x} is above max lid 0x{:x}", min, max);
  uint64_t count = max - min + 1;
  if ((count & (count - 1)) != 0 || count > 128) {
    return fmt::format("range 0x{:x}-0x{:x} holds {} lids, not 2^lmc (1..128)", min, max, count);
  }
  if (min % count != 0) return fmt::format("range 0x{:x}-0x{:x} does not start at a multiple of {}", min, max, count);
  return {};
}

// What was wrong with one line, or nothing: the parsed record.
struct LineResult {
  Guid guid;
  LidRange range;
  std::string problem;
};

LineResult parse_record(std::string_view line) {
  LineResult r;
  auto fields = split_words(line);
  if (fields.size() != 3) {
    r.problem = fmt::format("expected '<port guid> <min lid> <max lid>', got {} field{}", fields.size(),
                            fields.size() == 1 ? "" : "s");
    return r;
  }
  const auto guid = parse_guid(fields[0], Notation::c);
  if (!guid) {
    r.problem = fmt::format("port guid {} is not a number", quoted(fields[0]));
    return r;
  }
  if (guid->is_zero()) {
    r.problem = "port guid is zero";
    return r;
  }
  const auto min = parse_unsigned(fields[1], Notation::c);
  const auto max = parse_unsigned(fields[2], Notation::c);
  if (!min || !max) {
    r.problem = fmt::format("lid {} is not a number", quoted(!min ? fields[1] : fields[2]));
    return r;
  }
  r.problem = lid_block_problem(*min, *max);
  if (!r.problem.empty()) return r;
  r.guid = *guid;
  r.range = {Lid{static_cast<uint16_t>(*min)}, Lid{static_cast<uint16_t>(*max)}};
  return r;
}

}  // namespace

std::string lid_block_problem(const LidRange& range) { return lid_block_problem(range.min.value, range.max.value); }

Result<Guid2LidFile> parse_guid2lid(std::istream& in, std::string_view source_name) {
  Guid2LidFile file;
  std::unordered_map<Guid, size_t> first_line;  // where each GUID was first listed
  auto skip = [&](size_t line_no, std::string_view why) {
    ++file.skipped_lines;
    if (file.skipped_lines <= kGuid2LidMaxWarnings) {
      file.warnings.push_back(fmt::format("{}:{}: {}; line ignored", source_name, line_no, why));
    }
  };

  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::string_view text = line;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;  // OpenSM ends every record with an empty line
    if (text[first] == '#') continue;

    LineResult r = parse_record(text);
    if (!r.problem.empty()) {
      skip(line_no, r.problem);
      continue;
    }
    auto [it, inserted] = first_line.emplace(r.guid, line_no);
    if (!inserted) {
      // OpenSM keeps the first record of a GUID too.
      skip(line_no, fmt::format("port guid {} is already listed on line {}", r.guid, it->second));
      continue;
    }
    file.entries.emplace(r.guid, r.range);
  }
  if (in.bad()) return unavailable_error(fmt::format("{}: read error after line {}", source_name, line_no));
  if (file.skipped_lines > kGuid2LidMaxWarnings) {
    file.warnings.push_back(fmt::format("{}: {} more bad lines ignored", source_name,
                                        file.skipped_lines - kGuid2LidMaxWarnings));
  }
  return file;
}

void write_guid2lid(const Guid2Lid& map, std::ostream& out) {
  fmt::memory_buffer buf;
  for (const auto& [guid, range] : map) {
    fmt::format_to(std::back_inserter(buf), "0x{:016x} 0x{:04x} 0x{:04x}\n\n", guid.value, range.min.value,
                   range.max.value);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace ibsm
