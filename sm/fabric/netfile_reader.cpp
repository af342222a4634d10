#include "sm/fabric/netfile_reader.h"

#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sm/fabric/netfile_text.h"

namespace ibsm {
namespace {

using netfile_text::find_after;
using netfile_text::kMaxNameLength;
using netfile_text::is_space;
using netfile_text::parse_c_number;
using netfile_text::skip_space;
using netfile_text::trim;

// ibsim's limits (sim.h, sim_net.c): a 256-byte line buffer, 65-byte node ids,
// 64-byte descriptions, 20-character module prefixes, 9 nested includes.
constexpr size_t kMaxLineLength = 254;
constexpr size_t kMaxDescriptionLength = 63;
constexpr size_t kMaxPrefixLength = 20;
constexpr int kMaxIncludeDepth = 9;
constexpr unsigned kMaxPorts = 254;

// ibsim's starting GUIDs per node type: its table has no entry for routers,
// which therefore start at 0.
constexpr uint64_t kFirstCaGuid = 0x100000;
constexpr uint64_t kFirstSwitchGuid = 0x200000;
constexpr uint64_t kFirstRouterGuid = 0;

// ibsim's defaults for the enabled width and speeds: 4x, SDR, no extended speed.
// The masks use PortInfo's encodings, which are one bit per width or speed.
struct Enabled {
  uint8_t width = link_width::x4;
  uint8_t speed = link_speed::sdr;
  uint8_t speed_ext = link_speed_ext::none;
};

// One port line: the far end it names and where it was written.
struct Listing {
  std::string remote;  // empty: the port is not listed
  uint8_t remote_port = 0;
  uint16_t source = 0;
  uint32_t line = 0;
};

// What the reader keeps about a node until the links are made.
struct NodeSide {
  uint16_t source = 0;
  uint32_t line = 0;
  std::vector<Listing> listings;  // by port number
  std::vector<Enabled> enabled;   // by port number
};

size_t type_slot(NodeType t) { return static_cast<size_t>(t); }

// The best width or speed that both ends enable, in ibsim's order of preference.
std::optional<uint8_t> best_common(uint8_t a, uint8_t b, std::initializer_list<uint8_t> preference) {
  for (uint8_t bit : preference) {
    if ((a & b & bit) != 0) return bit;
  }
  return std::nullopt;
}

class NetfileParser {
 public:
  explicit NetfileParser(const NetfileOptions& options) : options_(options) {}

  Status parse(std::istream& in, std::string_view source_name, int depth);
  Result<Fabric> finish();

 private:
  // Locations and errors.
  std::string where(uint16_t source, uint32_t line) const { return fmt::format("{}:{}", sources_[source], line); }
  Status error_here(std::string_view message) const {
    return invalid_argument_error(fmt::format("{}: {}", where(source_, line_), message));
  }
  void note(std::string_view message) const {
    if (options_.on_note) options_.on_note(fmt::format("{}: {}", where(source_, line_), message));
  }

  Status top_level_line(std::string_view line, int depth);
  Status node_header(std::string_view line, NodeType type);
  Status port_line(std::string_view line);
  Status end_record();
  Status guid_base(std::string_view line, NodeType type);
  Status include(std::string_view line, int depth);
  Status module_prefix(std::string_view line);
  Status set_default(std::string_view line, std::string_view what, unsigned low, unsigned high, uint8_t& out);

  std::string expand_name(std::string_view name) const {
    if (prefix_.empty() || name.find('#') != std::string_view::npos) return std::string(name);
    return fmt::format("{}#{}", prefix_, name);
  }
  // The fabric does not index a zero GUID, which ibsim's first router gets.
  std::optional<NodeIndex> node_with_guid(uint64_t guid) const {
    return guid == 0 ? zero_guid_node_ : fabric_.find_by_node_guid(Guid{guid});
  }
  void parse_connection_data(std::string_view rest, Port& port, Enabled& enabled) const;
  Status connect_port(NodeIndex index, uint8_t port);

  const NetfileOptions& options_;
  Fabric fabric_;
  std::vector<NodeSide> sides_;  // parallel to fabric_.nodes()
  std::vector<std::string> sources_;
  uint16_t source_ = 0;
  uint32_t line_ = 0;

  // ibsim's parser state, carried across records and included files.
  std::array<uint64_t, 4> guid_base_{0, kFirstCaGuid, kFirstSwitchGuid, kFirstRouterGuid};
  std::array<uint64_t, 4> guid_next_ = guid_base_;
  uint32_t vendor_id_ = 0;      // next node only
  uint64_t system_guid_ = 0;    // next node only
  uint16_t device_id_ = 0;      // every node after it
  Enabled enabled_default_;     // ports of every node after it
  std::string prefix_;          // `module = "name"`: node ids become "name#id"
  std::optional<NodeIndex> zero_guid_node_;

  // The record being read: a node whose port lines follow its header.
  std::optional<Node> node_;
  NodeSide side_;
  unsigned ports_left_ = 0;
};

Status NetfileParser::parse(std::istream& in, std::string_view source_name, int depth) {
  if (sources_.size() >= UINT16_MAX) return error_here("too many included files");
  sources_.emplace_back(source_name);
  const uint16_t saved_source = source_;
  const uint32_t saved_line = line_;
  source_ = static_cast<uint16_t>(sources_.size() - 1);
  line_ = 0;

  std::string text;
  while (std::getline(in, text)) {
    ++line_;
    std::string_view line = text;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxLineLength) {
      return error_here(fmt::format("line longer than {} characters (ibsim splits it)", kMaxLineLength));
    }
    if (node_) {
      if (line.starts_with('#')) continue;  // a comment inside a record
      if (line.starts_with('[')) {
        IBSM_RETURN_IF_ERROR(port_line(line));
        if (--ports_left_ == 0) IBSM_RETURN_IF_ERROR(end_record());
        continue;
      }
      if (line.starts_with('@')) return error_here("port aliases ('@') are not supported");
      // Any other line ends the record, and ibsim swallows it.
      const std::string_view swallowed = trim(line);
      if (!swallowed.empty() && !swallowed.starts_with('#')) {
        return error_here(fmt::format("\"{}\" ends the port list of \"{}\" and would be ignored by ibsim; "
                                      "leave a blank line between records",
                                      swallowed, node_->name));
      }
      IBSM_RETURN_IF_ERROR(end_record());
      continue;
    }
    IBSM_RETURN_IF_ERROR(top_level_line(line, depth));
  }
  // The end of a file ends its last record, as in ibsim.
  if (node_) IBSM_RETURN_IF_ERROR(end_record());
  source_ = saved_source;
  line_ = saved_line;
  return Status::ok_status();
}

Status NetfileParser::top_level_line(std::string_view line, int depth) {
  // ibsim recognizes a line by its first characters, in this order.
  if (line.starts_with("Switch")) return node_header(line, NodeType::switch_);
  if (line.starts_with("Hca") || line.starts_with("Ca")) return node_header(line, NodeType::ca);
  if (line.starts_with("Rt")) return node_header(line, NodeType::router);
  if (line.starts_with("switchguid")) return guid_base(line, NodeType::switch_);
  if (line.starts_with("hcaguids") || line.starts_with("caguid")) return guid_base(line, NodeType::ca);
  if (line.starts_with("rtguid")) return guid_base(line, NodeType::router);
  if (line.starts_with("vendid") || line.starts_with("devid") || line.starts_with("sysimgguid")) {
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return error_here("bad assignment: missing '='");
    const uint64_t value = parse_c_number(line.substr(eq + 1)).value;
    if (line.starts_with("vendid")) vendor_id_ = static_cast<uint32_t>(value & 0xffffff);
    else if (line.starts_with("devid")) device_id_ = static_cast<uint16_t>(value & 0xffff);
    else system_guid_ = value;
    return Status::ok_status();
  }
  if (line.starts_with("width")) return set_default(line, "width", 1, 31, enabled_default_.width);
  if (line.starts_with("speed")) return set_default(line, "speed", 1, 7, enabled_default_.speed);
  if (line.starts_with("extspeed")) return set_default(line, "extended speed", 0, 15, enabled_default_.speed_ext);
  if (line.starts_with("module")) return module_prefix(line);
  if (line.starts_with("include")) return include(line, depth);
  if (line.starts_with("pdebug")) return Status::ok_status();
  if (line.starts_with("do")) {
    note(fmt::format("skipped ibsim command \"{}\"", trim(line.substr(2))));
    return Status::ok_status();
  }

  const std::string_view body = trim(line);
  if (body.empty() || body.starts_with('#')) return Status::ok_status();
  if (body.starts_with('[') || body.starts_with('@')) return error_here("port line outside a node record");
  // "<word> <number> "<name>"" is a node header of a type ibsim does not know
  // (or one that does not start in column 1, which ibsim ignores).
  size_t word_end = 0;
  while (word_end < body.size() && ((body[word_end] >= 'A' && body[word_end] <= 'Z') ||
                                    (body[word_end] >= 'a' && body[word_end] <= 'z'))) {
    ++word_end;
  }
  const std::string_view word = body.substr(0, word_end);
  const auto count = parse_c_number(body.substr(word_end));
  if (word_end > 0 && count.used > 0 && skip_space(body.substr(word_end + count.used)).starts_with('"')) {
    if (word == "Switch" || word == "Hca" || word == "Ca" || word == "Rt") {
      return error_here("a node header must start at the beginning of the line");
    }
    return error_here(fmt::format("unknown node type \"{}\" (expected Switch, Hca, Ca or Rt)", word));
  }
  note(fmt::format("ignored line \"{}\"", body));
  return Status::ok_status();
}

Status NetfileParser::node_header(std::string_view line, NodeType type) {
  size_t word_end = 0;
  while (word_end < line.size() && !is_space(line[word_end]) && line[word_end] != '"') ++word_end;
  const std::string_view word = line.substr(0, word_end);
  if (word != "Switch" && word != "Hca" && word != "Ca" && word != "Rt") {
    return error_here(fmt::format("unknown node type \"{}\" (expected Switch, Hca, Ca or Rt)", word));
  }
  const size_t open = line.find('"');
  if (open == std::string_view::npos) return error_here(fmt::format("{} header without a quoted node name", word));
  const size_t close = line.find('"', open + 1);
  if (close == std::string_view::npos) return error_here("unterminated node name");
  const std::string_view count_text = trim(line.substr(word_end, open - word_end));
  const auto count = parse_c_number(count_text);
  const std::string_view base_name = line.substr(open + 1, close - open - 1);
  if (count_text.empty() || count.used != count_text.size()) {
    return error_here(fmt::format("bad port count \"{}\" for \"{}\"", count_text, base_name));
  }
  if (count.value == 0 || count.value > kMaxPorts) {
    return error_here(fmt::format("\"{}\" has {} ports; a node has 1 to {}", base_name, count.value, kMaxPorts));
  }
  if (base_name.empty()) return error_here("empty node name");
  if (base_name.find_first_of("#@") != std::string_view::npos) {
    return error_here(fmt::format("bad node name \"{}\": '#' and '@' are reserved", base_name));
  }
  const std::string name = prefix_.empty() ? std::string(base_name) : fmt::format("{}#{}", prefix_, base_name);
  if (name.size() > kMaxNameLength) {
    return error_here(fmt::format("node name \"{}\" is longer than {} characters", name, kMaxNameLength));
  }
  if (auto other = fabric_.find_by_name(name)) {
    const NodeSide& first = sides_[other->value];
    return error_here(fmt::format("duplicate node name \"{}\" (first at {})", name, where(first.source, first.line)));
  }

  // NodeDescription: the text after '#', quoted or up to the LID information.
  const std::string_view after_name = line.substr(close + 1);
  std::string_view description;
  std::optional<std::string_view> tail = after_name;
  if (const size_t hash = after_name.find('#'); hash != std::string_view::npos) {
    const std::string_view text = skip_space(after_name.substr(hash + 1));
    tail.reset();
    if (text.starts_with('"')) {
      const size_t end = text.find('"', 1);
      description = text.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
      if (end != std::string_view::npos) tail = text.substr(end + 1);
    } else {
      description = text;
      for (std::string_view marker : {" enhanced port ", " base port ", " lid ", " lmc "}) {
        if (const size_t at = text.find(marker); at != std::string_view::npos) {
          description = text.substr(0, at);
          tail = text.substr(at + 1);
          break;
        }
      }
    }
  }

  const uint64_t guid = guid_next_[type_slot(type)];
  if (auto other = node_with_guid(guid)) {
    return error_here(fmt::format("node guid {} of \"{}\" is already used by \"{}\"", Guid{guid}, name,
                                  fabric_.node(*other).name));
  }
  const unsigned num_ports = static_cast<unsigned>(count.value);
  guid_next_[type_slot(type)] = guid + (type == NodeType::switch_ ? 1 : num_ports + 1);

  Node node;
  node.type = type;
  node.num_ports = static_cast<uint8_t>(num_ports);
  node.node_guid = Guid{guid};
  node.system_guid = Guid{system_guid_ != 0 ? system_guid_ : guid};
  node.vendor_id = vendor_id_;
  node.device_id = device_id_;
  node.revision = 0xa1;  // ibsim's NodeInfo template
  node.name = name;
  node.description = std::string(description.empty() ? std::string_view(name) : description);
  if (node.description.size() > kMaxDescriptionLength) node.description.resize(kMaxDescriptionLength);
  node.ports.resize(num_ports + 1);
  for (unsigned p = 0; p <= num_ports; ++p) {
    Port& port = node.ports[p];
    if (type == NodeType::switch_) port.guid = Guid{guid};
    else if (p > 0) port.guid = Guid{guid + p};
    port.state = PortState::down;
    port.phys_state = PhysState::polling;
  }
  if (type == NodeType::switch_) {
    Port& port0 = node.ports[0];
    port0.state = PortState::active;  // the switch's management port is always up
    port0.phys_state = PhysState::link_up;
    if (tail) {
      node.enhanced_port0 = tail->find("enhanced port 0") != std::string_view::npos;
      if (auto lid = find_after(*tail, "lid ")) port0.base_lid = Lid{static_cast<uint16_t>(parse_c_number(*lid).value)};
      if (auto lmc = find_after(*tail, "lmc ")) port0.lmc = static_cast<uint8_t>(parse_c_number(*lmc).value & 7);
    }
  }
  vendor_id_ = 0;
  system_guid_ = 0;

  node_ = std::move(node);
  side_ = NodeSide{source_, line_, std::vector<Listing>(num_ports + 1), std::vector<Enabled>(num_ports + 1, enabled_default_)};
  ports_left_ = num_ports;
  return Status::ok_status();
}

Status NetfileParser::port_line(std::string_view line) {
  Node& node = *node_;
  // "[3]", "[3][ext 5]", then for a CA's own port "(guid)".
  size_t pos = 1;
  const auto number = parse_c_number(line.substr(pos), /*base=*/10);
  if (number.used == 0 || line.substr(pos + number.used).find(']') != 0) {
    return error_here(fmt::format("bad port line \"{}\"", line));
  }
  if (number.value == 0 || number.value > node.num_ports) {
    return error_here(fmt::format("port {} out of range for \"{}\" ({} ports)", number.value, node.name, node.num_ports));
  }
  const auto port_num = static_cast<uint8_t>(number.value);
  std::string_view rest = line.substr(pos + number.used + 1);
  if (rest.starts_with("[ext")) rest = rest.substr(std::min(rest.size(), rest.find(']') + 1));
  std::optional<uint64_t> listed_guid;
  if (rest.starts_with('(')) {
    const auto guid = parse_c_number(rest.substr(1), /*base=*/16);
    if (guid.used == 0 || rest.substr(1 + guid.used).find(')') != 0) {
      return error_here(fmt::format("bad port guid in \"{}\"", line));
    }
    listed_guid = guid.value;
    rest = rest.substr(guid.used + 2);
  }
  rest = skip_space(rest);
  if (!rest.starts_with('"')) return error_here(fmt::format("expected a quoted remote node name in \"{}\"", line));
  const size_t close = rest.find('"', 1);
  if (close == std::string_view::npos) return error_here("unterminated remote node name");
  const std::string_view remote = rest.substr(1, close - 1);
  if (remote.empty()) return error_here("empty remote node name");
  if (remote.find('@') != std::string_view::npos) return error_here("port aliases ('@') are not supported");
  // From here on, `after` is what ibsim scans for options and LIDs.
  const std::string_view after = rest.substr(close + 1);
  unsigned remote_port = 1;  // ibsim's default when no port follows the name
  if (after.starts_with('[')) {
    const auto rp = parse_c_number(after.substr(1), /*base=*/10);
    if (rp.used == 0 || rp.value == 0 || rp.value > kMaxPorts) {
      return error_here(fmt::format("bad remote port in \"{}\"", line));
    }
    remote_port = static_cast<unsigned>(rp.value);
  } else if (skip_space(after).starts_with('[')) {
    return error_here(fmt::format("the remote port must follow the name directly (\"{}\"[n]); ibsim would use port 1",
                                  remote));
  }

  Listing& listing = side_.listings[port_num];
  if (!listing.remote.empty()) {
    return error_here(fmt::format("port {} of \"{}\" listed twice (first at {})", port_num, node.name,
                                  where(listing.source, listing.line)));
  }
  listing = Listing{expand_name(remote), static_cast<uint8_t>(remote_port), source_, line_};

  // Port options "w=", "s=", "e=" anywhere after the name: the letter is the
  // nearest one before the '='; ibsim ignores other letters.
  Enabled& enabled = side_.enabled[port_num];
  for (size_t eq = after.find('=', 1); eq != std::string_view::npos; eq = after.find('=', eq + 1)) {
    size_t letter = eq;
    while (letter > 0 && !((after[letter - 1] >= 'a' && after[letter - 1] <= 'z') ||
                           (after[letter - 1] >= 'A' && after[letter - 1] <= 'Z'))) {
      --letter;
    }
    if (letter == 0) continue;
    const char option = after[letter - 1];
    const uint64_t value = parse_c_number(after.substr(eq + 1)).value;
    if (option == 'w') {
      if (value < 1 || value > 31) return error_here(fmt::format("bad port option w={} (1..31)", value));
      enabled.width = static_cast<uint8_t>(value);
    } else if (option == 's') {
      if (value > 7) return error_here(fmt::format("bad port option s={} (1..7)", value));
      enabled.speed = static_cast<uint8_t>(value == 0 ? link_speed::qdr : value);
    } else if (option == 'e') {
      if (value > 15) return error_here(fmt::format("bad port option e={} (0..15)", value));
      enabled.speed_ext = static_cast<uint8_t>(value);
    }
  }
  if (node.type == NodeType::ca || node.type == NodeType::switch_) {
    parse_connection_data(after, node.ports[port_num], enabled);
  }

  if (listed_guid && node.type != NodeType::switch_) {
    Port& port = node.ports[port_num];
    if (options_.keep_listed_port_guids) {
      port.guid = Guid{*listed_guid};
    } else if (*listed_guid != port.guid.value) {
      note(fmt::format("\"{}\" port {} is listed with guid {}; ibsim uses {}", node.name, port_num,
                       Guid{*listed_guid}, port.guid));
    }
  }
  return Status::ok_status();
}

// The LID and the "lid N 4xQDR" text that ibnetdiscover writes after the last
// quote of a port line; ibsim reads a CA port's own LID only when that text is there.
void NetfileParser::parse_connection_data(std::string_view rest, Port& port, Enabled& enabled) const {
  const size_t last_quote = rest.rfind('"');
  const size_t from = last_quote == std::string_view::npos ? 0 : last_quote + 1;
  const size_t at = rest.find("lid", from);
  if (at == std::string_view::npos) return;
  if (node_->type == NodeType::ca) {
    if (auto lid = find_after(rest, "lid ")) port.base_lid = Lid{static_cast<uint16_t>(parse_c_number(*lid).value)};
    if (auto lmc = find_after(rest, "lmc ")) port.lmc = static_cast<uint8_t>(parse_c_number(*lmc).value & 7);
  }
  const auto rate = netfile_text::parse_lid_rate(rest.substr(at));
  if (!rate) return;  // ibsim only warns
  switch (rate->width) {
    case 1: enabled.width = link_width::x1; break;
    case 2: enabled.width = link_width::x2; break;
    case 4: enabled.width = link_width::x1 | link_width::x4; break;
    case 8: enabled.width = link_width::x8; break;
    case 12: enabled.width = link_width::x1 | link_width::x4 | link_width::x12; break;
    default: break;
  }
  // ibsim accepts any prefix of a speed's name, trying them in this order.
  constexpr uint8_t kUpToQdr = link_speed::sdr | link_speed::ddr | link_speed::qdr;
  struct SpeedName {
    std::string_view name;
    uint8_t speed;
    std::optional<uint8_t> speed_ext;
  };
  static constexpr std::array<SpeedName, 8> kSpeeds{{
      {"SDR", link_speed::sdr, std::nullopt},
      {"DDR", link_speed::sdr | link_speed::ddr, std::nullopt},
      {"QDR", kUpToQdr, std::nullopt},
      {"FDR", kUpToQdr, link_speed_ext::fdr},
      {"EDR", kUpToQdr, link_speed_ext::fdr | link_speed_ext::edr},
      {"HDR", kUpToQdr, link_speed_ext::fdr | link_speed_ext::edr | link_speed_ext::hdr},
      {"NDR", kUpToQdr, link_speed_ext::fdr | link_speed_ext::edr | link_speed_ext::hdr | link_speed_ext::ndr},
      {"FDR10", kUpToQdr, std::nullopt},  // Mellanox FDR10: QDR as far as PortInfo shows
  }};
  for (const SpeedName& s : kSpeeds) {
    if (s.name.starts_with(rate->speed)) {
      enabled.speed = s.speed;
      if (s.speed_ext) enabled.speed_ext = *s.speed_ext;
      break;
    }
  }
}

Status NetfileParser::end_record() {
  // The header's line is where a GUID clash shows.
  const uint32_t saved_line = line_;
  const uint16_t saved_source = source_;
  line_ = side_.line;
  source_ = side_.source;
  Result<NodeIndex> index = fabric_.add_node(std::move(*node_));
  node_.reset();
  if (!index.ok()) return error_here(index.status().message());
  line_ = saved_line;
  source_ = saved_source;
  if (fabric_.node(*index).node_guid.is_zero()) zero_guid_node_ = *index;
  sides_.push_back(std::move(side_));
  side_ = NodeSide{};
  return Status::ok_status();
}

Status NetfileParser::guid_base(std::string_view line, NodeType type) {
  size_t sign = line.find('=');
  if (sign == std::string_view::npos) sign = line.find('+');
  if (sign == std::string_view::npos) return error_here("bad assignment: missing '=' or '+'");
  const uint64_t value = parse_c_number(line.substr(sign + 1)).value;
  const size_t slot = type_slot(type);
  if (line[sign] == '=') guid_base_[slot] = value;
  guid_next_[slot] = guid_base_[slot] + (line[sign] == '+' ? value : 0);
  return Status::ok_status();
}

Status NetfileParser::set_default(std::string_view line, std::string_view what, unsigned low, unsigned high,
                                  uint8_t& out) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) return error_here("bad assignment: missing '='");
  const uint64_t value = parse_c_number(line.substr(eq + 1)).value;
  if (value < low || value > high) {
    return error_here(fmt::format("bad enabled {} {} ({}..{})", what, value, low, high));
  }
  out = static_cast<uint8_t>(value);
  return Status::ok_status();
}

Status NetfileParser::module_prefix(std::string_view line) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) return error_here("bad assignment: missing '='");
  const std::string_view value = line.substr(eq + 1);
  const size_t open = value.find('"');
  const size_t close = open == std::string_view::npos ? open : value.find('"', open + 1);
  if (close == std::string_view::npos) return error_here("module needs a quoted name");
  const std::string_view prefix = value.substr(open + 1, close - open - 1);
  if (prefix.size() > kMaxPrefixLength) {
    return error_here(fmt::format("module prefix \"{}\" longer than {} characters", prefix, kMaxPrefixLength));
  }
  prefix_ = std::string(prefix);
  return Status::ok_status();
}

Status NetfileParser::include(std::string_view line, int depth) {
  std::string_view name = trim(line.substr(7));
  if (const size_t open = line.find('"'); open != std::string_view::npos) {
    const size_t close = line.find('"', open + 1);
    if (close == std::string_view::npos) return error_here("bad include file name");
    name = line.substr(open + 1, close - open - 1);
  } else {
    note(fmt::format("include \"{}\" without quotes: ibsim needs them", name));
  }
  if (name.empty()) return error_here("bad include file name");
  if (depth + 1 >= kMaxIncludeDepth) return error_here(fmt::format("includes nested deeper than {}", kMaxIncludeDepth));
  if (!options_.include_resolver) return error_here(fmt::format("include \"{}\": no include resolver", name));
  Result<std::string> text = options_.include_resolver(name);
  if (!text.ok()) return error_here(fmt::format("include \"{}\": {}", name, text.status().message()));
  std::istringstream in(std::move(*text));
  return parse(in, name, depth + 1);
}

// Cables one listed port to the port it names, as ibsim's connect_ports does:
// both ends must name each other, and both must enable a common width and speed.
Status NetfileParser::connect_port(NodeIndex index, uint8_t port_num) {
  const NodeSide& side = sides_[index.value];
  const Listing& listing = side.listings[port_num];
  const Node& node = fabric_.node(index);
  source_ = listing.source;
  line_ = listing.line;
  const auto remote_index = fabric_.find_by_name(listing.remote);
  if (!remote_index) return error_here(fmt::format("link to undefined node \"{}\"", listing.remote));
  const Node& remote = fabric_.node(*remote_index);
  const uint8_t remote_port = listing.remote_port;
  if (remote_port > remote.num_ports) {
    return error_here(fmt::format("port {} out of range for \"{}\" ({} ports)", remote_port, remote.name,
                                  remote.num_ports));
  }
  if (*remote_index == index && remote_port == port_num) {
    return error_here(fmt::format("port {} of \"{}\" is linked to itself", port_num, node.name));
  }
  const NodeSide& remote_side = sides_[remote_index->value];
  const Listing& back = remote_side.listings[remote_port];
  if (back.remote.empty()) {
    return error_here(fmt::format("\"{}\"[{}] is linked to \"{}\"[{}], which does not list it (ibsim needs both ends)",
                                  node.name, port_num, remote.name, remote_port));
  }
  if (back.remote != node.name || back.remote_port != port_num) {
    return error_here(fmt::format("conflicting links: \"{}\"[{}] is linked to \"{}\"[{}], but \"{}\"[{}] to \"{}\"[{}] ({})",
                                  node.name, port_num, remote.name, remote_port, remote.name, remote_port,
                                  back.remote, back.remote_port, where(back.source, back.line)));
  }
  const Enabled& a = side.enabled[port_num];
  const Enabled& b = remote_side.enabled[remote_port];
  const auto width = best_common(a.width, b.width,
                                 {link_width::x12, link_width::x8, link_width::x4, link_width::x2, link_width::x1});
  if (!width) {
    return error_here(fmt::format("no common link width for \"{}\"[{}] and \"{}\"[{}] (enabled {:#x} and {:#x})",
                                  node.name, port_num, remote.name, remote_port, a.width, b.width));
  }
  const auto speed = best_common(a.speed, b.speed, {link_speed::qdr, link_speed::ddr, link_speed::sdr});
  if (!speed) {
    return error_here(fmt::format("no common link speed for \"{}\"[{}] and \"{}\"[{}] (enabled {:#x} and {:#x})",
                                  node.name, port_num, remote.name, remote_port, a.speed, b.speed));
  }
  const uint8_t speed_ext =
      best_common(a.speed_ext, b.speed_ext,
                  {link_speed_ext::ndr, link_speed_ext::hdr, link_speed_ext::edr, link_speed_ext::fdr})
          .value_or(link_speed_ext::none);

  const PortRef here{index, port_num};
  const PortRef there{*remote_index, remote_port};
  Status status = fabric_.connect(here, there);
  if (!status.ok()) return error_here(status.message());
  for (const PortRef& end : {here, there}) {
    Port& port = fabric_.node(end.node).port(end.port);
    port.width_active = *width;
    port.speed_active = *speed;
    port.speed_ext_active = speed_ext;
    port.state = PortState::init;
    port.phys_state = PhysState::link_up;
  }
  return Status::ok_status();
}

Result<Fabric> NetfileParser::finish() {
  for (size_t i = 0; i < fabric_.node_count(); ++i) {
    const NodeIndex index{static_cast<uint32_t>(i)};
    const uint8_t num_ports = fabric_.node(index).num_ports;
    for (unsigned p = 1; p <= num_ports; ++p) {
      const auto port = static_cast<uint8_t>(p);
      if (sides_[i].listings[p].remote.empty() || fabric_.node(index).port(port).connected()) continue;
      IBSM_RETURN_IF_ERROR(connect_port(index, port));
    }
  }
  return std::move(fabric_);
}

}  // namespace

Result<Fabric> read_netfile(std::istream& in, std::string_view source_name, const NetfileOptions& options) {
  NetfileParser parser(options);
  IBSM_RETURN_IF_ERROR(parser.parse(in, source_name, 0));
  return parser.finish();
}

}  // namespace ibsm
