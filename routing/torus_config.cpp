#include "routing/torus_config.h"

#include <string>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm::routing {

namespace {

// A switch node GUID: "0x" and 1 to 16 hex digits, not zero.
bool parse_switch_guid(std::string_view text, Guid& guid) {
  const auto g = parse_guid(text);
  if (!g || g->is_zero()) return false;
  guid = *g;
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
        const auto radix = parse_unsigned(r, Notation::decimal, 256);
        if (!radix || *radix == 0) {
          return bad(fmt::format("{} is not a radix (1 to 256, with an optional m, M, t or T)", quoted(t[1 + d])));
        }
        config.radix[d] = static_cast<uint32_t>(*radix);
        config.wraps[d] = wraps && *radix > 1;
      }
      have_size = true;
      continue;
    }
    if (key.size() == 7 && key.substr(2) == "_link" && (key[0] == 'x' || key[0] == 'y' || key[0] == 'z') &&
        (key[1] == 'p' || key[1] == 'm')) {
      TorusSeedLink link;
      link.dim = static_cast<uint8_t>(key[0] - 'x');
      link.positive = key[1] == 'p';
      if (t.size() < 3 || !parse_switch_guid(t[1], link.from) || !parse_switch_guid(t[2], link.to)) {
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
      const auto position = t.size() < 2 ? std::nullopt : parse_signed(t[1], INT32_MIN, INT32_MAX);
      if (!position) return bad("wants a signed whole number");
      seed.dateline[static_cast<size_t>(key[0] - 'x')] = static_cast<int32_t>(*position);
      continue;
    }
    if (key == "next_seed") {
      end_seed();
      continue;
    }
    if (key == "portgroup_max_ports") {
      const auto ports = t.size() < 2 ? std::nullopt : parse_unsigned(t[1], Notation::decimal, 254);
      if (!ports || *ports == 0) return bad("wants a number of ports, 1 to 254");
      config.portgroup_max_ports = static_cast<uint32_t>(*ports);
      continue;
    }
    return bad(fmt::format("unknown keyword {}", quoted(key)));
  }
  if (!have_size) return invalid_argument_error(fmt::format("{}: no torus or mesh line", source));
  end_seed();
  return config;
}

}  // namespace ibsm::routing
