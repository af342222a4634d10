#include "routing/torus_config.h"

#include <charconv>
#include <string>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm::routing {

namespace {

template <typename T>
bool parse_number(std::string_view text, T& value, int base = 10) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  return ec == std::errc() && ptr == end;
}

bool parse_guid(std::string_view text, Guid& guid) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') || text.size() > 18) return false;
  uint64_t value = 0;
  if (!parse_number(text.substr(2), value, 16) || value == 0) return false;
  guid = Guid{value};
  return true;
}

}  // namespace

Result<TorusConfig> parse_torus_config(std::string_view text, std::string_view source) {
  TorusConfig config;
  bool have_size = false;
  TorusSeed seed;
  size_t seed_line = 0;
  const auto end_seed = [&]() {
    if (!seed.links.empty()) config.seeds.push_back(seed);
    seed = TorusSeed{};
  };
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::string_view body = trim(line);
    if (body.empty() || body.front() == '#') continue;
    const std::vector<std::string_view> t = split_words(body);
    const std::string_view key = t[0];
    const auto bad = [&](std::string_view why) {
      return invalid_argument_error(fmt::format("{}:{}: {}: {}", source, number, quoted(body), why));
    };
    if (!have_size && key != "torus" && key != "mesh") return bad("the torus or mesh line must come first");
    if (key == "torus" || key == "mesh") {
      if (have_size) return bad("a second torus or mesh line");
      if (t.size() < 4) return bad("wants the radix of x, y and z");
      for (unsigned d = 0; d < kTorusDims; ++d) {
        std::string_view r = t[1 + d];
        bool wraps = key == "torus";
        if (!r.empty() && (r.back() == 'm' || r.back() == 'M' || r.back() == 't' || r.back() == 'T')) {
          wraps = r.back() == 't' || r.back() == 'T';
          r.remove_suffix(1);
        }
        uint32_t radix = 0;
        if (!parse_number(r, radix) || radix == 0 || radix > 256) {
          return bad(fmt::format("{} is not a radix (1 to 256, with an optional m, M, t or T)", quoted(t[1 + d])));
        }
        config.radix[d] = radix;
        config.wraps[d] = wraps && radix > 1;
      }
      have_size = true;
      continue;
    }
    if (key.size() == 7 && key.substr(2) == "_link" && (key[0] == 'x' || key[0] == 'y' || key[0] == 'z') &&
        (key[1] == 'p' || key[1] == 'm')) {
      TorusSeedLink link;
      link.dim = static_cast<uint8_t>(key[0] - 'x');
      link.positive = key[1] == 'p';
      if (t.size() < 3 || !parse_guid(t[1], link.from) || !parse_guid(t[2], link.to)) {
        return bad("wants two switch node guids (0x followed by hex digits)");
      }
      if (link.from == link.to) return bad("links a switch to itself");
      if (config.radix[link.dim] <= 1) return bad(fmt::format("the {} dimension has radix 1", key[0]));
      if (!seed.links.empty() && seed.links.front().from != link.from) {
        return bad(fmt::format("starts at {}, but the seed begun on line {} starts at {}", link.from, seed_line,
                               seed.links.front().from));
      }
      if (seed.links.empty()) seed_line = number;
      seed.links.push_back(link);
      continue;
    }
    if (key.size() == 10 && key.substr(1) == "_dateline" && (key[0] == 'x' || key[0] == 'y' || key[0] == 'z')) {
      int32_t position = 0;
      if (t.size() < 2 || !parse_number(t[1], position)) return bad("wants a signed whole number");
      seed.dateline[static_cast<size_t>(key[0] - 'x')] = position;
      continue;
    }
    if (key == "next_seed") {
      end_seed();
      continue;
    }
    if (key == "portgroup_max_ports") {
      uint32_t ports = 0;
      if (t.size() < 2 || !parse_number(t[1], ports) || ports == 0 || ports > 254) {
        return bad("wants a number of ports, 1 to 254");
      }
      config.portgroup_max_ports = ports;
      continue;
    }
    return bad(fmt::format("unknown keyword {}", quoted(key)));
  }
  if (!have_size) return invalid_argument_error(fmt::format("{}: no torus or mesh line", source));
  end_seed();
  return config;
}

}  // namespace ibsm::routing
