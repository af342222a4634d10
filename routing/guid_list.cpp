#include "routing/guid_list.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm::routing {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

Result<std::vector<Guid>> parse_guid_list(std::istream& in, std::string_view source) {
  std::vector<Guid> guids;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    std::string_view text = line;
    if (const size_t hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    text = trim(text);
    if (text.empty()) continue;
    const auto bad = [&](std::string_view why) {
      return invalid_argument_error(fmt::format("{}:{}: {} {}", source, number, quoted(text), why));
    };
    if (std::any_of(text.begin(), text.end(), blank)) return bad("holds more than one guid (one per line)");
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
      return bad("is not a guid (0x followed by hex digits)");
    }
    const std::string_view digits = text.substr(2);
    if (digits.size() > 16) return bad("is longer than a guid (16 hex digits)");
    uint64_t value = 0;
    for (char c : digits) {
      const int d = hex_digit(c);
      if (d < 0) return bad("is not a guid (0x followed by hex digits)");
      value = value << 4 | static_cast<uint64_t>(d);
    }
    if (value == 0) return bad("is zero, which no port has");
    if (std::find(guids.begin(), guids.end(), Guid{value}) == guids.end()) guids.push_back(Guid{value});
  }
  if (in.bad()) return unavailable_error(fmt::format("{}: read error", source));
  return guids;
}

}  // namespace ibsm::routing
