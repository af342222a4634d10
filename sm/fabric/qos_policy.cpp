#include "sm/fabric/qos_policy.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/base/text.h"
#include "mad/wire/p_key_table.h"

namespace ibsm {
namespace {

// Service IDs of the ULPs (OpenSM's QoS documentation).
constexpr uint64_t kSdpBase = 0x0000000000010000ULL;
constexpr uint64_t kRdsIserBase = 0x0000000001060000ULL;
constexpr uint64_t kRdsDefaultPort = 0x48CA;
constexpr uint64_t kIserDefaultPort = 0x0CBC;  // 3260

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view unquote(std::string_view v) {
  v = trim(v);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

bool parse_policy_number(std::string_view v, uint64_t& out) {
  const auto n = parse_unsigned(trim(v), Notation::decimal_or_hex);
  if (n) out = *n;
  return n.has_value();
}

std::vector<std::string_view> split(std::string_view v, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    size_t at = v.find(sep);
    out.push_back(trim(v.substr(0, at)));
    if (at == std::string_view::npos) return out;
    v.remove_prefix(at + 1);
  }
}

// "1,3-5,0x10": values and ranges, each no larger than `max`.
Result<std::vector<QosRange>> parse_ranges(std::string_view v, uint64_t max) {
  std::vector<QosRange> out;
  for (std::string_view item : split(v, ',')) {
    size_t dash = item.find('-');
    QosRange r;
    bool ok = dash == std::string_view::npos ? parse_policy_number(item, r.lo) && ((r.hi = r.lo), true)
                                             : parse_policy_number(item.substr(0, dash), r.lo) &&
                                                   parse_policy_number(item.substr(dash + 1), r.hi);
    if (!ok || r.lo > r.hi || r.hi > max)
      return invalid_argument_error(fmt::format("{} is not a value or range (at most 0x{:x})", quoted(item), max));
    out.push_back(r);
  }
  return out;
}

bool in_any(const std::vector<QosRange>& ranges, uint64_t v) {
  return std::any_of(ranges.begin(), ranges.end(), [v](const QosRange& r) { return r.contains(v); });
}

enum class Section {
  none, port_groups, port_group, qos_setup, vlarb_tables, vlarb_scope, sl2vl_tables, sl2vl_scope, qos_levels,
  qos_level, match_rules, match_rule, ulps
};

class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  Result<QosPolicy> run(std::istream& in) {
    std::string line;
    while (std::getline(in, line)) {
      ++line_no_;
      std::string_view s = line;
      if (size_t hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
      s = trim(s);
      if (s.empty()) continue;
      if (Status st = handle(s); !st.ok()) return error(st.message());
    }
    if (in.bad()) return invalid_argument_error(fmt::format("{}: read error", source_));
    if (section_ != Section::none) return error("the file ends inside a section (its end- line is missing)");
    return finish();
  }

 private:
  Status error_status(std::string what) const {
    return invalid_argument_error(fmt::format("{}:{}: {}", source_, line_no_, what));
  }
  Result<QosPolicy> error(std::string_view what) const {
    return invalid_argument_error(fmt::format("{}:{}: {}", source_, line_no_, what));
  }

  Status enter(std::string_view word) {
    struct Block { std::string_view open, close; Section outer, inner; };
    static constexpr Block blocks[] = {
        {"port-groups", "end-port-groups", Section::none, Section::port_groups},
        {"port-group", "end-port-group", Section::port_groups, Section::port_group},
        {"qos-setup", "end-qos-setup", Section::none, Section::qos_setup},
        {"vlarb-tables", "end-vlarb-tables", Section::qos_setup, Section::vlarb_tables},
        {"vlarb-scope", "end-vlarb-scope", Section::vlarb_tables, Section::vlarb_scope},
        {"sl2vl-tables", "end-sl2vl-tables", Section::qos_setup, Section::sl2vl_tables},
        {"sl2vl-scope", "end-sl2vl-scope", Section::sl2vl_tables, Section::sl2vl_scope},
        {"qos-levels", "end-qos-levels", Section::none, Section::qos_levels},
        {"qos-level", "end-qos-level", Section::qos_levels, Section::qos_level},
        {"qos-match-rules", "end-qos-match-rules", Section::none, Section::match_rules},
        {"qos-match-rule", "end-qos-match-rule", Section::match_rules, Section::match_rule},
        {"qos-ulps", "end-qos-ulps", Section::none, Section::ulps},
    };
    for (const Block& b : blocks) {
      if (word == b.open) {
        if (section_ != b.outer) return error_status(fmt::format("{} is out of place", b.open));
        section_ = b.inner;
        if (b.inner == Section::port_group) policy_.port_groups.emplace_back();
        if (b.inner == Section::qos_level) levels_.emplace_back(), level_lines_.push_back(line_no_);
        if (b.inner == Section::match_rule) rules_.emplace_back(), rule_lines_.push_back(line_no_);
        if (b.inner == Section::vlarb_scope) vlarb_scopes_.emplace_back(), vlarb_lines_.push_back(line_no_);
        if (b.inner == Section::sl2vl_scope) sl2vl_scopes_.emplace_back(), sl2vl_lines_.push_back(line_no_);
        return {};
      }
      if (word == b.close) {
        if (section_ != b.inner) return error_status(fmt::format("{} without {}", b.close, b.open));
        if (b.inner == Section::port_group && policy_.port_groups.back().name.empty())
          return error_status("a port-group needs a name");
        if (b.inner == Section::qos_level && (levels_.back().name.empty() || !levels_.back().sl))
          return error_status("a qos-level needs a name and an sl");
        if (b.inner == Section::match_rule && rules_.back().level_name.empty())
          return error_status("a qos-match-rule needs a qos-level-name");
        if (b.inner == Section::sl2vl_scope && !sl2vl_scopes_.back().table)
          return error_status("an sl2vl-scope needs an sl2vl-table");
        section_ = b.outer;
        return {};
      }
    }
    return error_status(fmt::format("unknown line {}", quoted(word)));
  }

  Status handle(std::string_view s) {
    if (section_ == Section::ulps && s != "end-qos-ulps") return ulp(s);
    size_t colon = s.find(':');
    if (colon == std::string_view::npos) return enter(s);
    const std::string key = lower(trim(s.substr(0, colon)));
    const std::string_view value = trim(s.substr(colon + 1));
    switch (section_) {
      case Section::port_group: return port_group_field(key, value);
      case Section::qos_level: return level_field(key, value);
      case Section::match_rule: return rule_field(key, value);
      case Section::vlarb_scope: return vlarb_field(key, value);
      case Section::sl2vl_scope: return sl2vl_field(key, value);
      default: return error_status(fmt::format("{} is not inside a port-group, qos-level or qos-match-rule", quoted(key)));
    }
  }

  Status port_group_field(const std::string& key, std::string_view value) {
    QosPortGroup& g = policy_.port_groups.back();
    if (key == "name") {
      g.name = std::string(unquote(value));
    } else if (key == "use") {
    } else if (key == "port-guid") {
      auto r = parse_ranges(value, UINT64_MAX);
      if (!r.ok()) return error_status(fmt::format("port-guid: {}", r.status().message()));
      g.port_guids.insert(g.port_guids.end(), r->begin(), r->end());
    } else if (key == "port-name") {
      for (std::string_view n : split(value, ',')) g.port_names.emplace_back(unquote(n));
    } else if (key == "partition") {
      for (std::string_view n : split(value, ',')) g.partitions.emplace_back(unquote(n));
    } else if (key == "node-type") {
      for (std::string_view t : split(value, ',')) {
        const std::string w = lower(t);
        if (w == "ca") g.ca = true;
        else if (w == "switch") g.switch_ = true;
        else if (w == "router") g.router = true;
        else if (w == "self") g.self = true;
        else if (w == "all") g.ca = g.switch_ = g.router = true;
        else return error_status(fmt::format("node-type {} is not CA, SWITCH, ROUTER, ALL or SELF", quoted(t)));
      }
    } else {
      return error_status(fmt::format("unknown port-group field {}", quoted(key)));
    }
    return {};
  }

  struct LevelDraft {
    QosLevel level;
    std::string name;
    std::optional<uint8_t> sl;
  };
  struct RuleDraft {
    QosMatchRule rule;
    std::vector<std::string> sources, destinations;
    std::string level_name;
  };

  Status level_field(const std::string& key, std::string_view value) {
    LevelDraft& l = levels_.back();
    auto code = [&](uint64_t max, std::optional<uint8_t>& into) -> Status {
      uint64_t n = 0;
      if (!parse_policy_number(value, n) || n > max) return error_status(fmt::format("{}: {} is not 0-{}", key, quoted(value), max));
      into = static_cast<uint8_t>(n);
      return {};
    };
    if (key == "name") {
      l.name = std::string(unquote(value));
    } else if (key == "use") {
      // a description, for the log only
    } else if (key == "pkey" || key == "path-bits") {
      // OpenSM reads path bits as 32-bit numbers; those beyond a port's
      // LMC never match.
      auto r = parse_ranges(value, key == "pkey" ? 0xFFFF : UINT32_MAX);
      if (!r.ok()) return error_status(fmt::format("{}: {}", key, r.status().message()));
      auto& into = key == "pkey" ? l.level.pkeys : l.level.path_bits;
      into.insert(into.end(), r->begin(), r->end());
    } else if (key == "sl") {
      return code(15, l.sl);
    } else if (key == "mtu-limit") {
      return code(5, l.level.mtu_limit);
    } else if (key == "rate-limit") {
      return code(63, l.level.rate_limit);
    } else if (key == "packet-life") {
      return code(63, l.level.packet_life);
    } else {
      return error_status(fmt::format("unknown qos-level field {}", quoted(key)));
    }
    return {};
  }

  Status rule_field(const std::string& key, std::string_view value) {
    RuleDraft& r = rules_.back();
    auto ranges = [&](uint64_t max, std::vector<QosRange>& into) -> Status {
      auto p = parse_ranges(value, max);
      if (!p.ok()) return error_status(fmt::format("{}: {}", key, p.status().message()));
      into.insert(into.end(), p->begin(), p->end());
      return {};
    };
    if (key == "use") return {};
    if (key == "qos-class") return ranges(255, r.rule.qos_class);
    if (key == "service-id") return ranges(UINT64_MAX, r.rule.service_id);
    if (key == "pkey") return ranges(0xFFFF, r.rule.pkey);
    if (key == "source" || key == "destination") {
      for (std::string_view n : split(value, ','))
        (key == "source" ? r.sources : r.destinations).emplace_back(unquote(n));
      return {};
    }
    if (key == "qos-level-name") {
      r.level_name = std::string(unquote(value));
      return {};
    }
    return error_status(fmt::format("unknown qos-match-rule field {}", quoted(key)));
  }

  struct VlArbDraft {
    QosVlArbScope scope;
    std::vector<std::string> groups, across;
  };
  struct Sl2VlDraft {
    QosSl2VlScope scope;
    std::vector<std::string> groups, across_from, across_to;
    std::optional<Sl2VlTemplate> table;
  };

  static void names(std::string_view value, std::vector<std::string>& into) {
    for (std::string_view n : split(value, ',')) into.emplace_back(unquote(n));
  }

  Status vlarb_field(const std::string& key, std::string_view value) {
    VlArbDraft& d = vlarb_scopes_.back();
    if (key == "group") return names(value, d.groups), Status{};
    if (key == "across") return names(value, d.across), Status{};
    if (key == "vlarb-high" || key == "vlarb-low") {
      auto t = parse_vlarb_template(value);
      if (!t.ok()) return error_status(fmt::format("{}: {} {}", key, quoted(value), t.status().message()));
      (key == "vlarb-high" ? d.scope.high : d.scope.low) = *t;
      return {};
    }
    if (key == "vl-high-limit") {
      uint64_t n = 0;
      if (!parse_policy_number(value, n) || n > 255) return error_status(fmt::format("vl-high-limit: {} is not 0-255", quoted(value)));
      d.scope.high_limit = static_cast<uint8_t>(n);
      return {};
    }
    return error_status(fmt::format("unknown vlarb-scope field {}", quoted(key)));
  }

  Status sl2vl_field(const std::string& key, std::string_view value) {
    Sl2VlDraft& d = sl2vl_scopes_.back();
    if (key == "group") return names(value, d.groups), Status{};
    if (key == "across-from") return names(value, d.across_from), Status{};
    if (key == "across-to") return names(value, d.across_to), Status{};
    if (key == "across") {
      names(value, d.across_from);
      names(value, d.across_to);
      return {};
    }
    if (key == "from" || key == "to") {
      if (trim(value) == "*") return {};
      auto r = parse_ranges(value, 254);
      if (!r.ok()) return error_status(fmt::format("{}: {}", key, r.status().message()));
      (key == "from" ? d.scope.from : d.scope.to) = std::move(*r);
      return {};
    }
    if (key == "sl2vl-table") {
      auto t = parse_sl2vl_template(value);
      if (!t.ok()) return error_status(fmt::format("sl2vl-table: {} {}", quoted(value), t.status().message()));
      d.table = *t;
      return {};
    }
    return error_status(fmt::format("unknown sl2vl-scope field {}", quoted(key)));
  }

  // "ULP[, KEY VALUE] : SL".
  Status ulp(std::string_view s) {
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos) return error_status(fmt::format("qos-ulps line {} has no ': SL'", quoted(s)));
    uint64_t sl = 0;
    if (!parse_policy_number(s.substr(colon + 1), sl) || sl > 15)
      return error_status(fmt::format("qos-ulps: SL {} is not 0-15", quoted(trim(s.substr(colon + 1)))));
    std::string_view head = trim(s.substr(0, colon));
    size_t comma = head.find(',');
    const std::string name = lower(trim(head.substr(0, comma)));
    std::string criterion;
    std::string_view criterion_value;
    if (comma != std::string_view::npos) {
      std::string_view rest = trim(head.substr(comma + 1));
      size_t space = rest.find_first_of(" \t");
      if (space == std::string_view::npos) return error_status(fmt::format("qos-ulps: {} needs a value", quoted(rest)));
      criterion = lower(rest.substr(0, space));
      criterion_value = trim(rest.substr(space));
    }
    QosMatchRule rule;
    const std::string level_name = fmt::format("qos-ulps line {}", line_no_);
    auto want = [&](std::initializer_list<std::string_view> allowed) -> Status {
      if (criterion.empty()) return {};
      for (std::string_view a : allowed)
        if (criterion == a) return {};
      return error_status(fmt::format("qos-ulps: {} does not take {}", name, quoted(criterion)));
    };
    auto ranges = [&](uint64_t max, std::vector<QosRange>& into) -> Status {
      auto p = parse_ranges(criterion_value, max);
      if (!p.ok()) return error_status(fmt::format("qos-ulps: {}: {}", criterion, p.status().message()));
      into = std::move(*p);
      return {};
    };
    auto ports_to_service_ids = [&](uint64_t base) -> Status {
      std::vector<QosRange> ports;
      IBSM_RETURN_IF_ERROR(ranges(0xFFFF, ports));
      for (const QosRange& p : ports) rule.service_id.push_back({base + p.lo, base + p.hi});
      return {};
    };
    if (name == "default") {
      if (!criterion.empty()) return error_status("qos-ulps: default takes no criterion");
      if (default_ulp_) return error_status("qos-ulps: a second default line");
      default_ulp_ = add_level(level_name, static_cast<uint8_t>(sl));
      return {};
    }
    if (name == "any") {
      if (criterion.empty()) return error_status("qos-ulps: any needs service-id, pkey or target-port-guid");
      IBSM_RETURN_IF_ERROR(want({"service-id", "pkey", "target-port-guid"}));
      if (criterion == "service-id") IBSM_RETURN_IF_ERROR(ranges(UINT64_MAX, rule.service_id));
      if (criterion == "pkey") IBSM_RETURN_IF_ERROR(ranges(0xFFFF, rule.pkey));
      if (criterion == "target-port-guid") IBSM_RETURN_IF_ERROR(ranges(UINT64_MAX, rule.target_port_guid));
    } else if (name == "sdp" || name == "rds" || name == "iser") {
      IBSM_RETURN_IF_ERROR(want({"port-num"}));
      const uint64_t base = name == "sdp" ? kSdpBase : kRdsIserBase;
      if (!criterion.empty()) {
        IBSM_RETURN_IF_ERROR(ports_to_service_ids(base));
      } else if (name == "sdp") {
        rule.service_id.push_back({kSdpBase, kSdpBase + 0xFFFF});
      } else {
        const uint64_t port = name == "rds" ? kRdsDefaultPort : kIserDefaultPort;
        rule.service_id.push_back({base + port, base + port});
      }
    } else if (name == "srp") {
      if (criterion != "target-port-guid") return error_status("qos-ulps: srp needs target-port-guid");
      IBSM_RETURN_IF_ERROR(ranges(UINT64_MAX, rule.target_port_guid));
    } else if (name == "ipoib") {
      IBSM_RETURN_IF_ERROR(want({"pkey"}));
      if (!criterion.empty()) {
        IBSM_RETURN_IF_ERROR(ranges(0xFFFF, rule.pkey));
      } else {
        rule.pkey.push_back({wire::default_partition, wire::default_partition});
      }
    } else {
      return error_status(fmt::format("qos-ulps: unknown ULP {} (default, any, sdp, rds, iser, srp, ipoib)", quoted(name)));
    }
    rule.level = add_level(level_name, static_cast<uint8_t>(sl));
    ulp_rules_.push_back(std::move(rule));
    return {};
  }

  size_t add_level(std::string name, uint8_t sl) {
    QosLevel l;
    l.name = std::move(name);
    l.sl = sl;
    ulp_levels_.push_back(std::move(l));
    return ulp_levels_.size() - 1;  // rebased in finish()
  }

  Result<QosPolicy> finish() {
    auto group = [&](const std::string& name, int line) -> Result<size_t> {
      for (size_t i = 0; i < policy_.port_groups.size(); ++i)
        if (policy_.port_groups[i].name == name) return i;
      return invalid_argument_error(fmt::format("{}:{}: no port-group named {}", source_, line, quoted(name)));
    };
    for (size_t i = 0; i < policy_.port_groups.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (policy_.port_groups[i].name == policy_.port_groups[j].name)
          return invalid_argument_error(fmt::format("{}: two port-groups named {}", source_, quoted(policy_.port_groups[i].name)));
    for (size_t i = 0; i < levels_.size(); ++i) {
      for (size_t j = 0; j < i; ++j)
        if (levels_[i].name == levels_[j].name)
          return invalid_argument_error(
              fmt::format("{}:{}: a second qos-level named {}", source_, level_lines_[i], quoted(levels_[i].name)));
      QosLevel l = levels_[i].level;
      l.name = levels_[i].name;
      l.sl = *levels_[i].sl;
      policy_.levels.push_back(std::move(l));
      if (lower(policy_.levels.back().name) == "default") policy_.default_level = i;
    }
    for (size_t i = 0; i < rules_.size(); ++i) {
      RuleDraft& d = rules_[i];
      auto level = std::find_if(policy_.levels.begin(), policy_.levels.end(),
                                [&](const QosLevel& l) { return l.name == d.level_name; });
      if (level == policy_.levels.end())
        return invalid_argument_error(fmt::format("{}:{}: no qos-level named {}", source_, rule_lines_[i], quoted(d.level_name)));
      d.rule.level = static_cast<size_t>(level - policy_.levels.begin());
      for (const std::string& n : d.sources) {
        auto g = group(n, rule_lines_[i]);
        if (!g.ok()) return g.status();
        d.rule.source.push_back(*g);
      }
      for (const std::string& n : d.destinations) {
        auto g = group(n, rule_lines_[i]);
        if (!g.ok()) return g.status();
        d.rule.destination.push_back(*g);
      }
      policy_.rules.push_back(std::move(d.rule));
    }
    auto groups = [&](const std::vector<std::string>& names, int line, std::vector<size_t>& into) -> Status {
      for (const std::string& n : names) {
        auto g = group(n, line);
        if (!g.ok()) return g.status();
        into.push_back(*g);
      }
      return {};
    };
    for (size_t i = 0; i < vlarb_scopes_.size(); ++i) {
      VlArbDraft& d = vlarb_scopes_[i];
      IBSM_RETURN_IF_ERROR(groups(d.groups, vlarb_lines_[i], d.scope.groups));
      IBSM_RETURN_IF_ERROR(groups(d.across, vlarb_lines_[i], d.scope.across));
      policy_.vlarb_scopes.push_back(std::move(d.scope));
    }
    for (size_t i = 0; i < sl2vl_scopes_.size(); ++i) {
      Sl2VlDraft& d = sl2vl_scopes_[i];
      IBSM_RETURN_IF_ERROR(groups(d.groups, sl2vl_lines_[i], d.scope.groups));
      IBSM_RETURN_IF_ERROR(groups(d.across_from, sl2vl_lines_[i], d.scope.across_from));
      IBSM_RETURN_IF_ERROR(groups(d.across_to, sl2vl_lines_[i], d.scope.across_to));
      d.scope.table = *d.table;
      policy_.sl2vl_scopes.push_back(std::move(d.scope));
    }
    const size_t base = policy_.levels.size();
    for (QosLevel& l : ulp_levels_) policy_.levels.push_back(std::move(l));
    for (QosMatchRule& r : ulp_rules_) {
      r.level += base;
      policy_.rules.push_back(std::move(r));
    }
    if (default_ulp_) policy_.default_level = base + *default_ulp_;
    return std::move(policy_);
  }

  std::string_view source_;
  int line_no_ = 0;
  Section section_ = Section::none;
  QosPolicy policy_;
  std::vector<LevelDraft> levels_;
  std::vector<int> level_lines_;
  std::vector<RuleDraft> rules_;
  std::vector<int> rule_lines_;
  std::vector<VlArbDraft> vlarb_scopes_;
  std::vector<int> vlarb_lines_;
  std::vector<Sl2VlDraft> sl2vl_scopes_;
  std::vector<int> sl2vl_lines_;
  std::vector<QosLevel> ulp_levels_;
  std::vector<QosMatchRule> ulp_rules_;
  std::optional<size_t> default_ulp_;
};

bool in_group(const QosPortGroup& g, Guid port, const QosPortFacts& facts) {
  if (in_any(g.port_guids, port.value)) return true;
  return facts.member && facts.member(g, port);
}

bool groups_match(const std::vector<size_t>& groups, const QosPolicy& p, Guid port, const QosPortFacts& facts) {
  if (groups.empty()) return true;
  return std::any_of(groups.begin(), groups.end(), [&](size_t g) { return in_group(p.port_groups[g], port, facts); });
}

}  // namespace

bool port_in_group(const QosPortGroup& g, const Fabric& fabric, PortRef port, PortRef sm_port,
                   const PartitionConfig* partitions, const std::function<bool(uint16_t pkey)>& holds_pkey) {
  const Node& node = fabric.node(port.node);
  if (in_any(g.port_guids, node.port(port.port).guid.value)) return true;
  if ((g.ca && node.type == NodeType::ca) || (g.switch_ && node.is_switch()) ||
      (g.router && node.type == NodeType::router))
    return true;
  if (g.self && port == sm_port) return true;
  if (!g.port_names.empty()) {
    const std::string with_port = fmt::format("{}/P{}", node.description, port.port);
    for (const std::string& name : g.port_names)
      if (name == with_port || name == node.description) return true;
  }
  if (partitions && holds_pkey)
    for (const std::string& name : g.partitions)
      for (const Partition& p : partitions->partitions)
        if (p.name == name && holds_pkey(p.pkey)) return true;
  return false;
}

const QosLevel* match_qos_level(const QosPolicy& policy, const QosRequest& q, const QosPortFacts& facts) {
  for (const QosMatchRule& r : policy.rules) {
    if (!r.qos_class.empty() && (!q.qos_class || !in_any(r.qos_class, *q.qos_class))) continue;
    if (!r.service_id.empty() && (!q.service_id || !in_any(r.service_id, *q.service_id))) continue;
    if (!r.pkey.empty() && (!q.pkey || !std::any_of(r.pkey.begin(), r.pkey.end(), [&](const QosRange& k) {
          return QosRange{k.lo & wire::p_key_base_mask, k.hi & wire::p_key_base_mask}.contains(*q.pkey & wire::p_key_base_mask);
        })))
      continue;
    if (!r.target_port_guid.empty() && !in_any(r.target_port_guid, q.destination.value)) continue;
    if (!groups_match(r.source, policy, q.source, facts)) continue;
    if (!groups_match(r.destination, policy, q.destination, facts)) continue;
    return &policy.levels[r.level];
  }
  return policy.default_level ? &policy.levels[*policy.default_level] : nullptr;
}

Result<QosPolicy> parse_qos_policy(std::istream& in, std::string_view source_name) {
  return Parser(source_name).run(in);
}

}  // namespace ibsm
