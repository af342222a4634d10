#include "sm/fabric/m_keys.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm {

Result<Guid2MKey> parse_guid2mkey(std::string_view text, std::string_view source_name) {
  Guid2MKey keys;
  std::map<Guid, size_t> first_line;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    line.remove_prefix(first);
    const size_t gap = line.find_first_of(" \t");
    std::string_view guid_text = line.substr(0, gap);
    std::string_view rest = gap == std::string_view::npos ? std::string_view{} : line.substr(gap);
    const size_t key_start = rest.find_first_not_of(" \t");
    rest = key_start == std::string_view::npos ? std::string_view{} : rest.substr(key_start);
    const size_t key_end = rest.find_first_of(" \t");
    std::string_view key_text = rest.substr(0, key_end);
    const bool trailing = key_end != std::string_view::npos && rest.find_first_not_of(" \t", key_end) != std::string_view::npos;
    auto fail = [&](std::string why) {
      return invalid_argument_error(fmt::format("{}:{}: {}", source_name, line_no, why));
    };
    if (key_text.empty() || trailing) return fail("expected '<port guid> <m_key>'");
    const auto guid = parse_guid(guid_text, Notation::c);
    if (!guid) return fail(fmt::format("port guid {} is not a number", quoted(guid_text)));
    if (guid->is_zero()) return fail("port guid is zero");
    const auto key = parse_unsigned(key_text, Notation::c);
    if (!key) return fail(fmt::format("m_key {} is not a number", quoted(key_text)));
    auto [it, inserted] = first_line.emplace(*guid, line_no);
    if (!inserted) return fail(fmt::format("port guid {} is already listed on line {}", *guid, it->second));
    keys.emplace(*guid, *key);
  }
  return keys;
}

std::string format_guid2mkey(const Guid2MKey& keys) {
  std::string out;
  for (const auto& [guid, key] : keys) out += fmt::format("0x{:016x} 0x{:016x}\n\n", guid.value, key);
  return out;
}

std::vector<uint64_t> m_key_candidates(uint64_t configured, const Guid2MKey& known) {
  std::map<uint64_t, size_t> held;
  for (const auto& [guid, key] : known)
    if (key != configured) ++held[key];
  std::vector<std::pair<size_t, uint64_t>> by_count;
  for (const auto& [key, n] : held) by_count.emplace_back(n, key);
  std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<uint64_t> out{configured};
  for (const auto& [n, key] : by_count) {
    if (out.size() == kMaxMKeyCandidates) break;
    out.push_back(key);
  }
  return out;
}

std::string MKeyPaths::text(const DrPath& path) {
  return std::string(reinterpret_cast<const char*>(path.raw().data()), static_cast<size_t>(path.hops()) + 1);
}

std::optional<uint64_t> MKeyPaths::key(const DrPath& path) const {
  if (empty()) return uint64_t{0};
  const std::string t = text(path);
  if (refused_.count(t) != 0) return std::nullopt;
  auto it = keys_.find(t);
  return it == keys_.end() ? 0 : it->second;
}

void MKeyPaths::set(const DrPath& path, uint64_t key) {
  const std::string t = text(path);
  refused_.erase(t);
  if (key == 0) {
    keys_.erase(t);
  } else {
    keys_[t] = key;
  }
}

void MKeyPaths::refuse(const DrPath& path) { refused_.insert(text(path)); }

}  // namespace ibsm
