#include "sm/fabric/partitions_conf.h"

#include <fmt/format.h>

#include "mad/base/text.h"

#include <algorithm>
#include <map>

#include "mad/wire/gid_text.h"
#include "mad/wire/p_key_table.h"
#include "sm/fabric/ib_rate_mtu.h"
#include "sm/fabric/netfile_text.h"

namespace ibsm {
namespace {

using netfile_text::is_space;
using netfile_text::trim;

// A C number (0x.. hex, 0.. octal, else decimal) that is the whole text and
// at most `max`: OpenSM silently reads "12ab" as 12 or truncates an
// oversized P_Key; here both are errors.
std::optional<uint64_t> parse_number(std::string_view s, uint64_t max) {
  return parse_unsigned(s, Notation::c, max);
}

// full, limited, both, or a leading part of one: OpenSM compares only the
// characters written, and its own example writes "=limi".
std::optional<Membership> parse_membership(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (std::string_view("full").starts_with(s)) return Membership::full;
  if (std::string_view("limited").starts_with(s)) return Membership::limited;
  if (std::string_view("both").starts_with(s)) return Membership::both;
  return std::nullopt;
}

// "name = value" split at the first '=', both sides trimmed.
struct Token {
  std::string_view name;
  std::optional<std::string_view> value;
};
Token split_token(std::string_view item) {
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) return {trim(item), std::nullopt};
  return {trim(item.substr(0, eq)), trim(item.substr(eq + 1))};
}

std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t comma = s.find(',');
    out.push_back(s.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    s.remove_prefix(comma + 1);
  }
}

// One definition: its text from after the previous ';' to before its own,
// comments removed, and the line of every character.
struct Statement {
  std::string text;
  std::vector<int> lines;
};

class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  void statement(const Statement& st);
  void unterminated(const Statement& st);
  void check_unique();

  struct Error {
    int line;
    std::string message;
  };
  std::vector<Error> errors;
  PartitionConfig config;

 private:
  // The line of a piece of the current statement's text (a view into it).
  int line_of(std::string_view piece) const {
    size_t at = static_cast<size_t>(piece.data() - st_->text.data());
    while (at < st_->text.size() && is_space(st_->text[at])) ++at;
    if (at >= st_->lines.size()) at = st_->lines.size() - 1;
    return st_->lines[at];
  }
  void error(int line, const std::string& what) {
    errors.push_back({line, fmt::format("{}:{}: {}", source_, line, what)});
  }
  void error(std::string_view at, const std::string& what) { error(line_of(at), what); }

  bool header(std::string_view text, Partition& p);
  void properties(std::string_view text, Partition& p);
  void member(std::string_view item, Partition& p);
  void group(std::string_view line, Partition& p);
  // false when `name` is no group flag; a bad value is reported here.
  bool group_flag(std::string_view item, const Token& t, PartitionGroupFlags& flags);

  std::string_view source_;
  const Statement* st_ = nullptr;
  size_t errors_before_ = 0;
};

void Reader::statement(const Statement& st) {
  st_ = &st;
  const std::string_view text = st.text;
  if (trim(text).empty()) return;  // ";;" or a trailing ';'
  errors_before_ = errors.size();
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    error(text, fmt::format("no ':' after the partition definition {}", quoted(trim(text), 40)));
    return;
  }
  Partition p;
  p.line = line_of(text);
  if (header(text.substr(0, colon), p)) properties(text.substr(colon + 1), p);
  if (errors.size() == errors_before_) config.partitions.push_back(std::move(p));
}

void Reader::unterminated(const Statement& st) {
  st_ = &st;
  if (trim(st.text).empty()) return;
  error(st.text, fmt::format("definition {} not ended by ';' at end of file", quoted(trim(st.text), 40)));
}

bool Reader::header(std::string_view text, Partition& p) {
  const std::vector<std::string_view> items = split_commas(text);
  Token first = split_token(items[0]);
  // A header that is only a number is the P_Key of a nameless partition.
  if (!first.value && !first.name.empty() && first.name[0] >= '0' && first.name[0] <= '9') {
    first.value = first.name;
    first.name = {};
  }
  p.name = std::string(first.name);
  if (!first.value) {
    error(items[0], fmt::format("partition {}: no P_Key (OpenSM would make one up; ibsm needs it written)", quoted(p.name)));
    return false;
  }
  const auto pkey = parse_number(*first.value, 0xffff);
  if (!pkey) {
    error(items[0], fmt::format("partition {}: P_Key {}: expected a number 0x0001-0x7fff", quoted(p.name), quoted(*first.value)));
    return false;
  }
  // The membership bit is not the partition's: OpenSM drops it, and members
  // get theirs from full/limited/both.
  p.pkey = static_cast<uint16_t>(*pkey & wire::p_key_base_mask);
  if (p.pkey == 0) {
    error(items[0], fmt::format("partition {}: P_Key {} is 0 without the membership bit; 0 is not a P_Key",
                                quoted(p.name), *first.value));
    return false;
  }
  for (size_t i = 1; i < items.size(); ++i) {
    const Token t = split_token(items[i]);
    if (t.name.empty()) {
      error(items[i], fmt::format("partition {}: empty flag", quoted(p.name)));
    } else if (t.name == "ipoib" || t.name == "indx0") {
      if (t.value) error(items[i], fmt::format("flag {} takes no value", quoted(t.name)));
      (t.name == "ipoib" ? p.ipoib : p.indx0) = true;
    } else if (t.name == "defmember") {
      const auto m = t.value ? parse_membership(*t.value) : std::nullopt;
      if (m) p.defmember = *m;
      else error(items[i], fmt::format("defmember {}: expected full, limited or both", quoted(t.value.value_or(""))));
    } else if (!group_flag(items[i], t, p.flags)) {
      error(items[i], fmt::format("unknown partition flag {} (known: ipoib, indx0, defmember, mtu, rate, sl, "
                                  "scope, Q_Key, TClass, FlowLabel)", quoted(t.name)));
    }
  }
  return true;
}

void Reader::properties(std::string_view text, Partition& p) {
  size_t i = 0;
  while (i < text.size()) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    // A group takes the rest of its line: its flags follow it after commas.
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("mgid") && netfile_text::skip_space(rest.substr(4)).starts_with('=')) {
      const size_t eol = std::min(text.find('\n', i), text.size());
      group(text.substr(i, eol - i), p);
      i = eol;
      continue;
    }
    const size_t end = std::min(text.find(',', i), text.size());
    member(text.substr(i, end - i), p);
    i = end + 1;
  }
}

void Reader::member(std::string_view item, Partition& p) {
  const Token t = split_token(item);
  if (t.name.empty() || t.name == "NONE") return;  // OpenSM skips both
  PartitionMember m;
  m.line = line_of(item);
  if (t.name == "ALL") m.kind = PartitionMember::Kind::all;
  else if (t.name == "ALL_CAS") m.kind = PartitionMember::Kind::all_cas;
  else if (t.name == "ALL_SWITCHES") m.kind = PartitionMember::Kind::all_switches;
  else if (t.name == "ALL_ROUTERS") m.kind = PartitionMember::Kind::all_routers;
  else if (t.name == "SELF") m.kind = PartitionMember::Kind::self;
  else {
    const auto guid = parse_guid(t.name, Notation::c);
    if (!guid || guid->is_zero()) {
      error(item, fmt::format("port GUID {}: expected ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF or a "
                              "nonzero 64-bit GUID (0x... or decimal)", quoted(t.name)));
      return;
    }
    m.guid = *guid;
  }
  if (t.value) {
    m.membership = parse_membership(*t.value);
    if (!m.membership) {
      error(item, fmt::format("membership {} of {}: expected full, limited or both", quoted(*t.value), quoted(t.name)));
      return;
    }
  }
  p.members.push_back(m);
}

void Reader::group(std::string_view line, Partition& p) {
  const std::vector<std::string_view> items = split_commas(line);
  const Token first = split_token(items[0]);
  PartitionGroup g;
  g.line = line_of(line);
  const auto gid = wire::parse_gid(first.value.value_or(""));
  if (!gid.ok()) {
    error(items[0], fmt::format("mgid {}: expected a GID like ff12:401b::1", quoted(first.value.value_or(""))));
    return;
  }
  if ((*gid)[0] != 0xff) {
    error(items[0], fmt::format("mgid {}: not a multicast GID (must start with ff)", quoted(*first.value)));
    return;
  }
  g.mgid = *gid;
  const size_t before = errors.size();
  for (size_t i = 1; i < items.size(); ++i) {
    const Token t = split_token(items[i]);
    if (t.name.empty() && !t.value) continue;  // a trailing comma
    if (!group_flag(items[i], t, g.flags))
      error(items[i], fmt::format("unknown group flag {} (known: mtu, rate, sl, scope, Q_Key, TClass, FlowLabel)",
                                  quoted(t.name)));
  }
  if (errors.size() == before) p.groups.push_back(g);
}

bool Reader::group_flag(std::string_view item, const Token& t, PartitionGroupFlags& flags) {
  const std::string_view v = t.value.value_or("");
  auto number = [&](uint64_t max, std::string_view expected) -> std::optional<uint64_t> {
    auto n = t.value ? parse_number(v, max) : std::nullopt;
    if (!n) error(item, fmt::format("{} {}: expected {}", t.name, quoted(v), expected));
    return n;
  };
  if (t.name == "mtu") {
    flags.mtu = parse_mtu_code(v);
    if (!flags.mtu) error(item, fmt::format("mtu {}: expected {}", quoted(v), mtu_values_help));
  } else if (t.name == "rate") {
    flags.rate = parse_rate_code(v);
    if (!flags.rate) error(item, fmt::format("rate {}: expected {}", quoted(v), rate_values_help));
  } else if (t.name == "sl") {
    if (auto n = number(15, "an SL 0-15")) flags.sl = static_cast<uint8_t>(*n);
  } else if (t.name == "scope") {
    // IBA 4.1.1: the 4-bit scope of a multicast GID; OpenSM refuses 0.
    auto n = number(15, "a multicast scope 1-15 (2 is link-local)");
    if (n && *n == 0) {
      error(item, "scope '0': expected a multicast scope 1-15 (2 is link-local)");
    } else if (n) {
      flags.scope_mask = static_cast<uint16_t>(flags.scope_mask | (1u << *n));
    }
  } else if (t.name == "Q_Key" || t.name == "qkey") {  // the code's name, the manual's name
    if (auto n = number(0xffffffff, "a 32-bit Q_Key")) flags.q_key = static_cast<uint32_t>(*n);
  } else if (t.name == "TClass" || t.name == "tclass") {
    if (auto n = number(0xff, "a traffic class 0-255")) flags.tclass = static_cast<uint8_t>(*n);
  } else if (t.name == "FlowLabel" || t.name == "flowlabel") {
    if (auto n = number(0xfffff, "a 20-bit flow label")) flags.flow_label = static_cast<uint32_t>(*n);
  } else {
    return false;
  }
  return true;
}

// OpenSM joins definitions that share a P_Key (its documented examples split
// one partition over several), so an operator's file keeps working: the
// later definition's members and groups join the first, its flags fill what
// the first left unset. Different names for one P_Key, or one flag given two
// values, stay errors: a split definition that disagrees with itself is a
// mistake, and silently picking one would hide it.
template <typename T>
void join_flag(std::optional<T>& into, const std::optional<T>& from, const char* name, const Partition& later,
               const Partition& first, std::vector<std::pair<int, std::string>>& conflicts) {
  if (!from) return;
  if (into && *into != *from) {
    conflicts.emplace_back(later.line, fmt::format("partition {}: {} {} differs from {} on line {}", quoted(later.name), name,
                                                   unsigned{*from}, unsigned{*into}, first.line));
    return;
  }
  into = from;
}

void Reader::check_unique() {
  std::vector<Partition> joined;
  std::map<uint16_t, size_t> by_pkey;
  std::map<std::string, size_t> by_name;
  std::vector<std::pair<int, std::string>> conflicts;
  for (Partition& p : config.partitions) {
    auto same_pkey = by_pkey.find(p.pkey);
    if (same_pkey != by_pkey.end()) {
      Partition& first = joined[same_pkey->second];
      if (!p.name.empty() && !first.name.empty() && p.name != first.name) {
        error(p.line, fmt::format("partition {}: P_Key 0x{:04x} already used by partition {} on line {}", quoted(p.name),
                                  p.pkey, quoted(first.name), first.line));
        continue;
      }
      if (first.name.empty()) first.name = p.name;
      first.ipoib = first.ipoib || p.ipoib;
      first.indx0 = first.indx0 || p.indx0;
      PartitionGroupFlags& f = first.flags;
      join_flag(f.mtu, p.flags.mtu, "mtu", p, first, conflicts);
      join_flag(f.rate, p.flags.rate, "rate", p, first, conflicts);
      join_flag(f.sl, p.flags.sl, "sl", p, first, conflicts);
      join_flag(f.q_key, p.flags.q_key, "Q_Key", p, first, conflicts);
      join_flag(f.tclass, p.flags.tclass, "TClass", p, first, conflicts);
      join_flag(f.flow_label, p.flags.flow_label, "FlowLabel", p, first, conflicts);
      f.scope_mask = static_cast<uint16_t>(f.scope_mask | p.flags.scope_mask);
      // A member keeps the defmember of the definition it was listed in.
      for (PartitionMember m : p.members) {
        if (!m.membership) m.membership = p.defmember;
        first.members.push_back(m);
      }
      for (PartitionGroup& g : p.groups) first.groups.push_back(std::move(g));
      continue;
    }
    if (!p.name.empty()) {
      if (auto it = by_name.find(p.name); it != by_name.end()) {
        error(p.line, fmt::format("partition name {} already used on line {}", quoted(p.name), joined[it->second].line));
        continue;
      }
      by_name.emplace(p.name, joined.size());
    }
    by_pkey.emplace(p.pkey, joined.size());
    joined.push_back(std::move(p));
  }
  for (auto& [line, message] : conflicts) error(line, std::move(message));
  config.partitions = std::move(joined);
}

}  // namespace

Result<PartitionConfig> read_partitions_conf(std::istream& in, std::string_view source_name) {
  Reader reader(source_name);
  Statement st;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string_view text = std::string_view(line).substr(0, line.find('#'));
    for (char c : text) {
      if (c == ';') {
        reader.statement(st);
        st = {};
        continue;
      }
      st.text.push_back(c);
      st.lines.push_back(lineno);
    }
    // Kept: a group (mgid=) ends at the end of its line.
    st.text.push_back('\n');
    st.lines.push_back(lineno);
  }
  reader.unterminated(st);
  reader.check_unique();
  if (!reader.errors.empty()) {
    // In file order: the duplicate checks run last but belong to their lines.
    std::stable_sort(reader.errors.begin(), reader.errors.end(),
                     [](const auto& a, const auto& b) { return a.line < b.line; });
    std::string message;
    for (const auto& e : reader.errors) {
      if (!message.empty()) message += '\n';
      message += e.message;
    }
    return invalid_argument_error(std::move(message));
  }
  return std::move(reader.config);
}

std::string_view part_enforce_name(PartEnforce e) {
  switch (e) {
    case PartEnforce::both: return "both";
    case PartEnforce::in: return "in";
    case PartEnforce::out: return "out";
    case PartEnforce::off: return "off";
  }
  return "both";
}

std::optional<PartEnforce> parse_part_enforce(std::string_view word) {
  for (PartEnforce e : {PartEnforce::both, PartEnforce::in, PartEnforce::out, PartEnforce::off})
    if (word == part_enforce_name(e)) return e;
  return std::nullopt;
}

}  // namespace ibsm
