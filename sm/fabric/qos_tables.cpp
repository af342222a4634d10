#include "sm/fabric/qos_tables.h"

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm {
namespace {

// A decimal (or 0x hex) number no larger than `max`.
bool parse_small(std::string_view v, unsigned max, unsigned& out) {
  const auto n = parse_unsigned(trim(v), Notation::decimal_or_hex, max);
  if (!n) return false;
  out = static_cast<unsigned>(*n);
  return true;
}

template <typename Fn>
void for_each_item(std::string_view text, Fn&& fn) {
  while (true) {
    size_t comma = text.find(',');
    fn(text.substr(0, comma));
    if (comma == std::string_view::npos) return;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

Result<VlArbTemplate> parse_vlarb_template(std::string_view text) {
  VlArbTemplate t{};
  size_t n = 0;
  std::string error;
  if (trim(text).empty()) return invalid_argument_error("is empty");
  for_each_item(text, [&](std::string_view item) {
    if (!error.empty()) return;
    if (n == t.size()) {
      error = fmt::format("has more than {} entries", t.size());
      return;
    }
    size_t colon = item.find(':');
    unsigned vl = 0, weight = 0;
    if (colon == std::string_view::npos || !parse_small(item.substr(0, colon), 15, vl) ||
        !parse_small(item.substr(colon + 1), 255, weight)) {
      error = fmt::format("entry {} is not VL:weight (VL 0-15, weight 0-255)", quoted(trim(item)));
      return;
    }
    t[n++] = VlWeight{static_cast<uint8_t>(vl), static_cast<uint8_t>(weight)};
  });
  if (!error.empty()) return invalid_argument_error(error);
  return t;
}

Result<Sl2VlTemplate> parse_sl2vl_template(std::string_view text) {
  Sl2VlTemplate t{};
  size_t n = 0;
  std::string error;
  for_each_item(text, [&](std::string_view item) {
    if (!error.empty()) return;
    unsigned vl = 0;
    if (n == t.size()) {
      error = "has more than 16 VLs (one per SL 0-15)";
    } else if (!parse_small(item, 15, vl)) {
      error = fmt::format("VL {} of SL{} is not 0-15", quoted(trim(item)), n);
    } else {
      t[n++] = static_cast<uint8_t>(vl);
    }
  });
  if (!error.empty()) return invalid_argument_error(error);
  if (n != t.size()) return invalid_argument_error(fmt::format("has {} VLs, not 16 (one per SL 0-15)", n));
  return t;
}

QosClassTables resolve_qos_class(const QosClassKeys& cls, const QosClassKeys& general) {
  QosClassTables t;
  t.max_vls = cls.max_vls > 0 ? cls.max_vls : general.max_vls > 0 ? general.max_vls : default_qos_max_vls;
  t.high_limit = static_cast<uint8_t>(cls.high_limit >= 0       ? cls.high_limit
                                      : general.high_limit >= 0 ? general.high_limit
                                                                : default_qos_high_limit);
  auto pick = [](const std::string& a, const std::string& b, std::string_view fallback) {
    return !a.empty() ? std::string_view(a) : !b.empty() ? std::string_view(b) : fallback;
  };
  auto vlarb = [](std::string_view text, std::string_view fallback) {
    auto r = parse_vlarb_template(text);
    return r.ok() ? *r : *parse_vlarb_template(fallback);
  };
  t.vlarb_high = vlarb(pick(cls.vlarb_high, general.vlarb_high, default_qos_vlarb_high), default_qos_vlarb_high);
  t.vlarb_low = vlarb(pick(cls.vlarb_low, general.vlarb_low, default_qos_vlarb_low), default_qos_vlarb_low);
  auto sl2vl = parse_sl2vl_template(pick(cls.sl2vl, general.sl2vl, default_qos_sl2vl));
  t.sl2vl = sl2vl.ok() ? *sl2vl : *parse_sl2vl_template(default_qos_sl2vl);
  return t;
}

}  // namespace ibsm
