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
    const auto guid = parse_guid(text);
    if (!guid) {
      const bool prefixed = text.starts_with("0x") || text.starts_with("0X");
      return bad(prefixed && text.size() > 2 + kGuidHexDigits ? "is longer than a guid (16 hex digits)"
                                                              : "is not a guid (0x followed by hex digits)");
    }
    if (guid->is_zero()) return bad("is zero, which no port has");
    if (std::find(guids.begin(), guids.end(), *guid) == guids.end()) guids.push_back(*guid);
  }
  if (in.bad()) return unavailable_error(fmt::format("{}: read error", source));
  return guids;
}

}  // namespace ibsm::routing
