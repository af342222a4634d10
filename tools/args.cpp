#include "tools/args.h"

#include "mad/base/text.h"


namespace ibsm::tools {

Args::Args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) items_.emplace_back(argv[i]);
  used_.assign(items_.size(), false);
}

std::optional<size_t> Args::find(std::string_view name, std::string_view alias, std::string* inline_value) {
  for (size_t i = 0; i < items_.size(); ++i) {
    if (used_[i]) continue;
    std::string_view item = items_[i];
    if (item == "--") break;
    if (item == name || (!alias.empty() && item == alias)) return i;
    if (inline_value && item.size() > name.size() + 1 && item.substr(0, name.size()) == name &&
        item[name.size()] == '=') {
      *inline_value = std::string(item.substr(name.size() + 1));
      return i;
    }
  }
  return std::nullopt;
}

bool Args::flag(std::string_view name, std::string_view alias) {
  auto i = find(name, alias, nullptr);
  if (!i) return false;
  used_[*i] = true;
  return true;
}

std::optional<std::string> Args::value(std::string_view name, std::string_view alias) {
  std::string inline_value;
  auto i = find(name, alias, &inline_value);
  if (!i) return std::nullopt;
  used_[*i] = true;
  if (!inline_value.empty()) return inline_value;
  if (*i + 1 >= items_.size()) {
    errors_.push_back(std::string(name) + " needs a value");
    return std::nullopt;
  }
  used_[*i + 1] = true;
  return items_[*i + 1];
}

std::optional<int64_t> Args::integer(std::string_view name, int64_t min, int64_t max, std::string_view alias) {
  auto v = value(name, alias);
  if (!v) return std::nullopt;
  // Decimal with an optional '-', or hex after "0x" (the one number parser).
  std::optional<int64_t> parsed;
  if (v->starts_with('-')) {
    parsed = parse_signed(*v);
  } else if (auto u = parse_unsigned(*v, Notation::decimal_or_hex, INT64_MAX)) {
    parsed = static_cast<int64_t>(*u);
  }
  if (!parsed) {
    errors_.push_back(std::string(name) + ": '" + *v + "' is not a number");
    return std::nullopt;
  }
  const int64_t n = *parsed;
  if (n < min || n > max) {
    errors_.push_back(std::string(name) + ": " + *v + " is out of range " + std::to_string(min) + ".." +
                      std::to_string(max));
    return std::nullopt;
  }
  return n;
}

std::optional<uint64_t> Args::guid(std::string_view name, std::string_view alias) {
  auto v = value(name, alias);
  if (!v) return std::nullopt;
  const std::optional<Guid> g = parse_guid(*v, Notation::hex_optional_0x);
  if (!g) {
    errors_.push_back(std::string(name) + ": '" + *v + "' is not a GUID (hex, e.g. 0x0002c90300001234)");
    return std::nullopt;
  }
  return g->value;
}

std::vector<std::string> Args::positionals() {
  std::vector<std::string> out;
  bool after_dashes = false;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (used_[i]) continue;
    if (!after_dashes && items_[i] == "--") {
      after_dashes = true;
      continue;
    }
    if (!after_dashes && items_[i].size() > 1 && items_[i][0] == '-') {
      errors_.push_back("unknown option " + items_[i]);
      continue;
    }
    out.push_back(items_[i]);
  }
  return out;
}

}  // namespace ibsm::tools
