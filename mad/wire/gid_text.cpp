#include "mad/wire/gid_text.h"

#include <vector>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm::wire {

std::string format_gid(std::span<const uint8_t, 16> g) {
  return fmt::format("{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}",
                     g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

Result<std::array<uint8_t, 16>> parse_gid(std::string_view text) {
  // IPv6 text: up to 8 groups of hex, one "::" for a run of zero groups.
  std::array<uint16_t, 8> groups{};
  std::vector<uint16_t> head, tail;
  bool gap = false;
  std::vector<uint16_t>* out = &head;
  size_t i = 0;
  if (text.substr(0, 2) == "::") {
    gap = true;
    out = &tail;
    i = 2;
  }
  while (i < text.size()) {
    size_t end = text.find(':', i);
    std::string_view part = text.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
    const auto v = part.size() > 4 ? std::nullopt : parse_unsigned(part, Notation::hex);
    if (!v)
      return invalid_argument_error(fmt::format("'{}' is not a GID (IPv6 form, e.g. fe80::2c9:300:0:1)", text));
    out->push_back(static_cast<uint16_t>(*v));
    if (end == std::string_view::npos) break;
    if (end + 1 < text.size() && text[end + 1] == ':') {
      if (gap) return invalid_argument_error(fmt::format("'{}' has two '::'", text));
      gap = true;
      out = &tail;
      i = end + 2;
    } else {
      i = end + 1;
    }
  }
  // "::" stands for at least one group of zeros (RFC 4291 2.2).
  if (head.size() + tail.size() > (gap ? 7u : 8u) || (!gap && head.size() != 8))
    return invalid_argument_error(fmt::format("'{}' is not a GID of 8 groups", text));
  std::copy(head.begin(), head.end(), groups.begin());
  std::copy(tail.begin(), tail.end(), groups.end() - static_cast<std::ptrdiff_t>(tail.size()));
  std::array<uint8_t, 16> gid{};
  for (size_t g = 0; g < 8; ++g) {
    gid[2 * g] = static_cast<uint8_t>(groups[g] >> 8);
    gid[2 * g + 1] = static_cast<uint8_t>(groups[g]);
  }
  return gid;
}

}  // namespace ibsm::wire
